package dev.ratelimit.testkit;

import dev.ratelimit.internal.testkit.TestOnlyGateway;
import org.junit.rules.TestRule;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * The JUnit 4 rule of a {@link TestOnlyRedis}: it resets the Redis after each test (and after the
 * class), and while it runs, opening a store on {@code test-only-redis://} logs no ERROR. Declare
 * it as both class rule and rule, so it runs before a container your {@code @BeforeClass} starts
 * and resets after each test:
 *
 * <pre>{@code
 * @ClassRule
 * @Rule
 * public static final TestOnlyRedisRule redis = new TestOnlyRedisRule("shop");
 * }</pre>
 *
 * Needs JUnit 4.12 or later on the test class path; JUnit 5 tests take {@link TestOnlyRedisExtension}.
 */
public final class TestOnlyRedisRule extends TestOnlyRedis implements TestRule {

    /** @param name the Redis's name: letters, digits, '-' and '_' */
    public TestOnlyRedisRule(String name) {
        super(name);
    }

    @Override
    public Statement apply(Statement base, Description description) {
        return new Statement() {
            @Override
            public void evaluate() throws Throwable {
                TestOnlyGateway.testStarts();
                try {
                    base.evaluate();
                } finally {
                    try {
                        reset();
                    } finally {
                        TestOnlyGateway.testEnds();
                    }
                }
            }
        };
    }
}
