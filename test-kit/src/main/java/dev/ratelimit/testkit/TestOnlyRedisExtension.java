package dev.ratelimit.testkit;

import dev.ratelimit.internal.testkit.TestOnlyGateway;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The JUnit 5 extension of a {@link TestOnlyRedis}: it resets the Redis after each test (and
 * after the class), and while it runs, opening a store on {@code test-only-redis://} logs no
 * ERROR. Register it on a static field, so it runs before a container your {@code @BeforeAll}
 * starts:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TestOnlyRedisExtension redis = new TestOnlyRedisExtension("shop");
 * }</pre>
 *
 * Needs JUnit Jupiter on the test class path; JUnit 4 tests take {@link TestOnlyRedisRule}.
 */
public final class TestOnlyRedisExtension extends TestOnlyRedis
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    /** @param name the Redis's name: letters, digits, '-' and '_' */
    public TestOnlyRedisExtension(String name) {
        super(name);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        TestOnlyGateway.testStarts();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        TestOnlyGateway.testStarts();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        resetAndEnd();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        resetAndEnd();
    }

    private void resetAndEnd() {
        try {
            reset();
        } finally {
            TestOnlyGateway.testEnds();
        }
    }
}
