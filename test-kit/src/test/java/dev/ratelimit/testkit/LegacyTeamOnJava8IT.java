package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.Java8;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit as a legacy team meets it: {@code java8/LegacyCheckoutTest.java} (a test resource, written
 * as such a team writes it: Java 8, JUnit 4 and the kit's rule, the javax filter before a servlet in
 * an embedded Jetty 9.4) compiled for Java 8 and run by JUnit 4's runner in a JVM of its own: the
 * real Java 8 the build was given ({@link Java8}; {@code .ci/runtimes} fetches one), or else this JVM.
 * Its class path is the javax run's (pom.xml, execution javax-servlet), less the project's test
 * harnesses, which need a later Java.
 */
class LegacyTeamOnJava8IT {
    @TempDir
    Path work;

    @Test
    void aJUnit4TestOfTheJavaxFilterOnJetty94PassesOnTheKit() throws Exception {
        assertThat(System.getProperty("kit.servlet.namespace")).as("the javax run (pom.xml, execution javax-servlet) has "
                + "what this test needs, Jetty 9.4 and the javax filter; -Dit.test also names it to the jakarta run, "
                + "which cannot: CONTRIBUTING.md says how to run it alone").isEqualTo("javax");
        List<Path> classPath = legacyClassPath();
        String source;
        try (InputStream in = LegacyTeamOnJava8IT.class.getResourceAsStream("/java8/LegacyCheckoutTest.java")) {
            source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Path classes = Java8.compile("LegacyCheckoutTest", source, classPath, work);

        List<Path> runPath = new ArrayList<>(List.of(classes));
        runPath.addAll(classPath);
        String output = run(Java8.javaOrThisJvm().toString(), "-cp", joined(runPath), "org.junit.runner.JUnitCore",
                "LegacyCheckoutTest");

        assertThat(output).as("JUnit 4 on %s said", Java8.javaOrThisJvm()).contains("OK (2 tests)");
        if (Java8.given()) {
            assertThat(run(Java8.javaOrThisJvm().toString(), "-XshowSettings:properties", "-version"))
                    .as("the JVM it ran on").contains("java.version = 1.8.");
        }
    }

    /** Runs the command to its end (at most a minute) and returns what it printed; fails unless it exits 0. */
    private String run(String... command) throws IOException, InterruptedException {
        Path output = Files.createTempFile(work, "out", ".txt");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String printed = Files.readString(output);
        assertThat(ended && process.exitValue() == 0).as("%s ended with 0 within a minute; it printed:%n%s",
                String.join(" ", command), printed).isTrue();
        return printed;
    }

    private static String joined(List<Path> classPath) {
        return classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    /** This run's class path less the project's test classes and harnesses (built for Java 17). */
    private static List<Path> legacyClassPath() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<Path> kept = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank() && !isHarness(Path.of(entry))) {
                kept.add(Path.of(entry));
            }
        }
        return kept;
    }

    /** Test classes, and the test-log and test-support modules, as jars or as a reactor module's classes. */
    private static boolean isHarness(Path entry) {
        String name = String.valueOf(entry.getFileName());
        Path module = entry.getParent() != null && entry.getParent().getParent() != null
                ? entry.getParent().getParent().getFileName() : null;
        String moduleName = String.valueOf(module);
        return name.equals("test-classes") || name.startsWith("ratelimit-test-log") || name.startsWith("ratelimit-test-support")
                || name.equals("classes") && (moduleName.equals("test-log") || moduleName.startsWith("test-support"));
    }
}
