package dev.ratelimit.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Redis ACL user of a test class's own, made before its tests and deleted after them (see
 * {@link AclUsers}). JUnit orders registered extensions as it likes, so it holds its server open
 * itself (opens nest: whichever comes first starts Redis, the last to close stops it):
 *
 * <pre>{@code
 * @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();
 * @RegisterExtension static final AclUser noScripts = new AclUser(redis, "noscripts", "+@all", "-@scripting");
 * }</pre>
 */
public final class AclUser implements BeforeAllCallback, AfterAllCallback {
    private final RedisServerExtension redis;
    private final String name;
    private final String password;
    private final String[] commandRules;

    /**
     * @param namePrefix the user's name before a part that makes it unique
     * @param commandRules such as {@code "+@all", "-@scripting"}
     */
    public AclUser(RedisServerExtension redis, String namePrefix, String... commandRules) {
        this.redis = redis;
        this.name = namePrefix + System.nanoTime();
        this.password = "pw-" + System.nanoTime();
        this.commandRules = commandRules.clone();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        redis.beforeAll(context);
        AclUsers.create(redis, name, password, commandRules);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            AclUsers.drop(redis, name);
        } finally {
            redis.afterAll(context);
        }
    }

    public String name() {
        return name;
    }

    public String password() {
        return password;
    }

    /** The URI that logs in as this user. */
    public String uri() {
        return uri(password);
    }

    /** The URI that tries to log in as this user with {@code password}. */
    public String uri(String password) {
        return AclUsers.uri(redis, name, password);
    }
}
