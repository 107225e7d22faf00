package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The kit's Redis by name, its clock, and its JUnit classes, each loadable with only its own JUnit. */
class TestOnlyRedisTest {

    @Test
    void oneRedisPerNameInTheJvm() {
        TestOnlyRedis one = TestOnlyRedis.named("by-name");
        TestOnlyRedis same = TestOnlyRedis.named("by-name");
        one.advance(Duration.ofSeconds(3));
        assertThat(same.now()).isEqualTo(one.now());
        assertThat(same.uri()).isEqualTo("test-only-redis://by-name");
        assertThat(TestOnlyRedis.named("other-name").now()).isBefore(one.now());
    }

    @Test
    void aNameRedisUriCannotTakeIsRefusedNamingTheSettingAndTheValue() {
        assertThatThrownBy(() -> TestOnlyRedis.named("a b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redisUri").hasMessageContaining("'test-only-redis://a b'");
    }

    @Test
    void theClockOnlyMovesForward() {
        assertThatThrownBy(() -> TestOnlyRedis.named("forward").advance(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-0.001S");
    }

    /** A JUnit 4 project has no Jupiter on its class path, a JUnit 5 one maybe no JUnit 4: each class loads without the other. */
    @Test
    void theRuleNeedsNoJupiterAndTheExtensionNoJUnit4() throws Exception {
        assertThat(makeWithout(TestOnlyRedisRule.class, path -> path.contains("junit-jupiter") || path.contains("opentest4j")
                || path.contains("junit-platform"))).isEqualTo("test-only-redis://junit4-only");
        assertThat(makeWithout(TestOnlyRedisExtension.class, path -> path.contains(File.separator + "junit" + File.separator
                + "junit" + File.separator) || path.contains("hamcrest") || path.contains("junit-vintage")))
                .isEqualTo("test-only-redis://junit5-only");
    }

    /** Makes the class in a class loader of this test's class path less the entries {@code left out}; its uri(). */
    private static String makeWithout(Class<?> type, Predicate<String> leftOut) throws Exception {
        // Surefire's own property where it has one: java.class.path may be a jar that only lists the rest.
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        int left = 0;
        for (String entry : classPath.split(File.pathSeparator)) {
            if (leftOut.test(entry)) {
                left++;
            } else {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        assertThat(left).as("JUnit entries left out of " + classPath).isPositive();
        String name = type == TestOnlyRedisRule.class ? "junit4-only" : "junit5-only";
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
            Class<?> loaded = loader.loadClass(type.getName());
            Object made = loaded.getConstructor(String.class).newInstance(name);
            for (java.lang.reflect.Method method : loaded.getMethods()) {
                // Resolves every signature: a missing JUnit type in one would fail here.
                method.getParameterTypes();
            }
            return (String) loaded.getMethod("uri").invoke(made);
        }
    }
}
