package dev.ratelimit.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server line a line suite runs on, a parameter of the build rather than a class per line: the
 * system property {@value #PROPERTY} names it and its binary, {@code <product>-<version>=<path>}
 * (e.g. {@code valkey-9=/opt/valkey/valkey-server}, {@code redis-8.0=/usr/bin/redis-server}).
 * Unset, it is Redis 6.2 from the embedded-redis jar: the oldest Redis README promises. The build
 * runs the line suites ({@code RedisLine*IT}) once more per line it is given (see the root pom's
 * {@code redis-line-*} profiles and {@code .ci/runtimes}).
 */
public final class RedisLine {
    /** The system property that names the line: {@code <product>-<version>=<redis-server binary>}. */
    public static final String PROPERTY = "ratelimit.test.redis.line";

    private static final Pattern NAME = Pattern.compile("(redis|valkey)-(\\d+(?:\\.\\d+)?)");
    private static final RedisLine EMBEDDED = new RedisLine("redis", "6.2", null);

    private final String product;
    private final String version;
    private final Path binary;

    private RedisLine(String product, String version, Path binary) {
        this.product = product;
        this.version = version;
        this.binary = binary;
    }

    /** The line this JVM was asked to run on. */
    public static RedisLine current() {
        return current(System::getProperty);
    }

    static RedisLine current(Function<String, String> props) {
        String value = props.apply(PROPERTY);
        if (value == null || value.isBlank()) {
            return EMBEDDED;
        }
        int equals = value.indexOf('=');
        Matcher name = NAME.matcher(equals < 0 ? "" : value.substring(0, equals).trim().toLowerCase(Locale.ROOT));
        if (!name.matches()) {
            throw new IllegalStateException("-D" + PROPERTY + "=" + value + " must be <product>-<version>=<binary>, "
                    + "product redis or valkey, e.g. valkey-9=/opt/valkey/valkey-server");
        }
        Path binary = Path.of(value.substring(equals + 1).trim());
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("-D" + PROPERTY + "=" + value + ": " + binary + " is not an executable "
                    + "file (.ci/runtimes fetches Valkey 8, Valkey 9 and Redis 8)");
        }
        return new RedisLine(name.group(1), name.group(2), binary);
    }

    /** The binary to start; null for the embedded-redis jar's. */
    Path binary() {
        return binary;
    }

    /** E.g. {@code valkey-9}. */
    public String name() {
        return product + "-" + version;
    }

    /**
     * Whether a server that calls itself {@code product} at {@code serverVersion} belongs to this
     * line: Valkey reports {@code redis_version:7.2.4} whatever its own version, so a line is told
     * by {@code server_name} and {@code valkey_version} (see {@link RedisServerExtension#serverProduct()}).
     */
    public boolean isServedBy(String serverProduct) {
        Objects.requireNonNull(serverProduct, "serverProduct");
        return serverProduct.startsWith(product + " " + version + ".");
    }

    @Override
    public String toString() {
        return binary == null ? name() + " (embedded-redis)" : name() + " (" + binary + ")";
    }
}
