package dev.ratelimit.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.quickstart.QuickStartBuild.Namespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 39: README's build command fills {@code lib/} with the filter of the namespace, the core
 * and what they need at run time, javax first, then jakarta in the same copy. Each {@code lib/}
 * that passes is left in {@code target/quick-start-libs} (lib-javax, lib-jakarta), where
 * {@code ServerLinesSmokeIT} (module server-smoke) takes it into the WARs it deploys; one that does
 * not pass is not left at all.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QuickStartBuildIT {
    private static final Path LIBS = Path.of(System.getProperty("ratelimit.quickStart.libs"));
    private static final String VERSION = System.getProperty("ratelimit.quickStart.version");

    /** The copy of the repository both builds run in, outside it (see {@link QuickStartBuild#buildLib}). */
    @TempDir
    static Path work;

    @BeforeAll
    static void forgetTheLastRunsJars() throws IOException {
        if (Files.exists(LIBS)) {
            try (Stream<Path> files = Files.walk(LIBS)) {
                for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(file);
                }
            }
        }
        Files.createDirectories(LIBS);
    }

    @Test
    @Order(1)
    void javaxBuildFillsLibWithTheJavaxFilter() throws Exception {
        buildAndLeave(Namespace.JAVAX, "ratelimit-filter-javax-", "ratelimit-filter-");
    }

    @Test
    @Order(2)
    void jakartaBuildFillsLibWithTheJakartaFilter() throws Exception {
        buildAndLeave(Namespace.JAKARTA, "ratelimit-filter-", "ratelimit-filter-javax-");
    }

    private static void buildAndLeave(Namespace namespace, String filter, String otherFilter) throws Exception {
        Path lib = QuickStartBuild.fromReadme().buildLib(namespace, work);
        List<String> jars;
        try (Stream<Path> files = Files.list(lib)) {
            jars = files.map(file -> file.getFileName().toString()).toList();
        }
        assertThat(jars).as("lib/ of the %s build", namespace)
                .allSatisfy(jar -> assertThat(jar).endsWith(".jar"))
                .contains(filter + VERSION + ".jar", "ratelimit-core-" + VERSION + ".jar", "slf4j-api-1.7.36.jar")
                .doesNotContain(otherFilter + VERSION + ".jar")
                .anySatisfy(jar -> assertThat(jar).startsWith("jedis-"))
                .anySatisfy(jar -> assertThat(jar).startsWith("commons-pool2-"));
        // Whole or not at all: copied aside, then renamed into place.
        Path partial = Files.createDirectories(LIBS.resolve(namespace.libName() + ".partial"));
        for (String jar : jars) {
            Files.copy(lib.resolve(jar), partial.resolve(jar));
        }
        Files.move(partial, LIBS.resolve(namespace.libName()), StandardCopyOption.ATOMIC_MOVE);
    }
}
