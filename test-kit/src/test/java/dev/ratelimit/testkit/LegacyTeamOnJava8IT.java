package dev.ratelimit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit as a legacy team meets it: {@code java8/LegacyCheckoutTest.java} (a test resource, written
 * as such a team writes it: Java 8, JUnit 4 and the kit's rule, the javax filter before a servlet in
 * an embedded Jetty 9.4) compiled for Java 8 and run by JUnit 4's runner in a JVM of its own: the
 * real Java 8 the build was given ({@code -Dratelimit.smoke.java8}, a JRE's home, which
 * {@code .ci/runtimes} fetches), or else this JVM. Its class path is the javax run's (pom.xml,
 * execution javax-servlet), less the project's test harnesses, which need a later Java.
 */
class LegacyTeamOnJava8IT {
    private static final String JAVA_8_PROPERTY = "ratelimit.smoke.java8";

    @TempDir
    Path work;

    @Test
    void aJUnit4TestOfTheJavaxFilterOnJetty94PassesOnTheKit() throws Exception {
        assertThat(System.getProperty("kit.servlet.namespace")).as("the javax run (pom.xml, execution javax-servlet) has "
                + "what this test needs, Jetty 9.4 and the javax filter; -Dit.test also names it to the jakarta run, "
                + "which cannot: CONTRIBUTING.md says how to run it alone").isEqualTo("javax");
        String classPath = legacyClassPath();
        Path source = work.resolve("LegacyCheckoutTest.java");
        try (InputStream in = LegacyTeamOnJava8IT.class.getResourceAsStream("/java8/LegacyCheckoutTest.java")) {
            Files.copy(in, source);
        }
        Path classes = Files.createDirectories(work.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter compilerOutput = new StringWriter();
        boolean compiled = javac.getTask(compilerOutput, null, null, Arrays.asList("--release", "8", "-nowarn", "-classpath",
                classPath, "-d", classes.toString()), null,
                javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(source.toFile())).call();
        assertThat(compiled).as("compiled for Java 8: %s", compilerOutput).isTrue();

        Process junit = new ProcessBuilder(java().toString(), "-cp", classes + File.pathSeparator + classPath,
                "org.junit.runner.JUnitCore", "LegacyCheckoutTest").redirectErrorStream(true).start();
        String output;
        try (InputStream in = junit.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            if (!junit.waitFor(60, TimeUnit.SECONDS)) {
                junit.destroyForcibly();
            }
        }
        assertThat(junit.exitValue()).as("JUnit 4 on %s said:%n%s", java(), output).isZero();
        assertThat(output).contains("OK (2 tests)");
        if (java8Given()) {
            assertThat(version(java())).as("the JVM it ran on").startsWith("1.8.");
        }
    }

    private static boolean java8Given() {
        String home = System.getProperty(JAVA_8_PROPERTY);
        return home != null && !home.isBlank();
    }

    private static Path java() {
        Path java = java8Given() ? Path.of(System.getProperty(JAVA_8_PROPERTY), "bin", "java")
                : Path.of(System.getProperty("java.home"), "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new IllegalStateException("-D" + JAVA_8_PROPERTY + "=" + System.getProperty(JAVA_8_PROPERTY)
                    + " has no bin/java: give it a Java 8 JRE's home (.ci/runtimes fetches one)");
        }
        return java;
    }

    /** The JVM's {@code java.version}, as {@code -XshowSettings:properties} prints it. */
    private static String version(Path java) throws IOException, InterruptedException {
        Process settings = new ProcessBuilder(java.toString(), "-XshowSettings:properties", "-version")
                .redirectErrorStream(true).start();
        String text;
        try (InputStream in = settings.getInputStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        settings.waitFor(30, TimeUnit.SECONDS);
        return text.lines().map(String::trim).filter(line -> line.startsWith("java.version = ")).findFirst()
                .map(line -> line.substring("java.version = ".length())).orElse(text);
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

    /** This run's class path less the project's test classes and harnesses (built for Java 17). */
    private static String legacyClassPath() {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> kept = new ArrayList<>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank() && !isHarness(Path.of(entry))) {
                kept.add(entry);
            }
        }
        return kept.stream().collect(Collectors.joining(File.pathSeparator));
    }
}
