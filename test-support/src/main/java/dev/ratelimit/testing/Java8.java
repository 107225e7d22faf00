package dev.ratelimit.testing;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Java 8 for the tests of what legacy teams run: the real Java 8 JVM the build was given
 * ({@value #PROPERTY}, a JRE's home, which {@code .ci/runtimes} fetches), and their code compiled
 * for Java 8 ({@code --release 8}), as their teams would have.
 */
public final class Java8 {
    /** The system property naming a Java 8 JRE's home. */
    public static final String PROPERTY = "ratelimit.smoke.java8";

    private Java8() {
    }

    /** Whether the build gave a Java 8 JVM. */
    public static boolean given() {
        String home = System.getProperty(PROPERTY);
        return home != null && !home.isBlank();
    }

    /** The given Java 8's {@code java}, or this JVM's when none was given. */
    public static Path javaOrThisJvm() {
        if (!given()) {
            return Path.of(System.getProperty("java.home"), "bin", "java");
        }
        Path java = Path.of(System.getProperty(PROPERTY), "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new IllegalStateException("-D" + PROPERTY + "=" + System.getProperty(PROPERTY)
                    + " has no bin/java: give it a Java 8 JRE's home (.ci/runtimes fetches one)");
        }
        return java;
    }

    /**
     * Compiles one class ({@code className}, its source) for Java 8 against {@code classPath}, into
     * {@code out}'s {@code classes}; returns that directory.
     *
     * @throws AssertionError with the compiler's messages when it does not compile
     */
    public static Path compile(String className, String source, List<Path> classPath, Path out) {
        try {
            Path file = Files.createDirectories(out.resolve("src"))
                    .resolve(className.substring(className.lastIndexOf('.') + 1) + ".java");
            Path classes = Files.createDirectories(out.resolve("classes"));
            Files.writeString(file, source);
            JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
            StringWriter errors = new StringWriter();
            boolean compiled = javac.getTask(errors, null, null,
                    List.of("--release", "8", "-nowarn", "-d", classes.toString(), "-cp",
                            classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator))),
                    null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(file)).call();
            if (!compiled) {
                throw new AssertionError(className + " does not compile for Java 8 against " + classPath + ": " + errors);
            }
            return classes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
