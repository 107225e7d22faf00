package dev.ratelimit.quickstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Step 1 of README's quick start, read from README and done as written: its build command run
 * with bash in a copy of the repository (for jakarta with the change README names), with the
 * outer build's Maven and local repository.
 */
final class QuickStartBuild {
    /** The repository: this module's parent directory. */
    static final Path ROOT = Path.of("..");
    private static final String BUILD_STEP = "**1. Build the jars**";
    private static final String FENCE = "```sh";

    /** The two kinds of WAR README's quick start takes, built in this order. */
    enum Namespace {
        JAVAX, JAKARTA;

        /** The name of the directory its jars are left in: {@code lib-javax}, {@code lib-jakarta}. */
        String libName() {
            return "lib-" + name().toLowerCase(Locale.ROOT);
        }
    }

    private final String readme;

    private QuickStartBuild(String readme) {
        this.readme = readme;
    }

    static QuickStartBuild fromReadme() throws IOException {
        return new QuickStartBuild(Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8));
    }

    /** The shell command of step 1, as README gives it for {@code namespace}. */
    String buildCommand(Namespace namespace) {
        int step = readme.indexOf(BUILD_STEP);
        assertThat(step).as("README has '%s'", BUILD_STEP).isNotNegative();
        int fence = readme.indexOf(FENCE, step);
        assertThat(fence).as("a %s block after '%s'", FENCE, BUILD_STEP).isNotNegative();
        int start = readme.indexOf('\n', fence) + 1;
        String command = readme.substring(start, readme.indexOf("```", start)).strip();
        assertThat(command).as("README's build command is for javax, and says what jakarta changes")
                .contains("-pl filter-javax ");
        assertThat(readme).contains("*jakarta*: `-pl filter` instead of `-pl filter-javax`");
        return namespace == Namespace.JAVAX ? command : command.replace("-pl filter-javax ", "-pl filter ");
    }

    /**
     * Runs the build command of step 1 with bash in a copy of the repository under {@code work}
     * (its sources, not its {@code target} directories: fresh for the first namespace, the second
     * reusing what the first compiled, as one user building both would), and returns the
     * {@code lib} directory it filled, moved aside to {@code work/lib-<namespace>} for the next.
     * {@code work} must lie outside the repository: Maven looks upward from the copy for a
     * {@code .mvn} directory, and the repository's (with its {@code -T 2}) is not a user's.
     */
    Path buildLib(Namespace namespace, Path work) throws IOException, InterruptedException {
        Path checkout = work.resolve("checkout");
        if (!Files.isDirectory(checkout)) {
            copySources(ROOT.toAbsolutePath().normalize(), checkout);
        }
        Path log = work.resolve("build-" + namespace + ".log");
        ProcessBuilder bash = new ProcessBuilder("bash", "-c", buildCommand(namespace)).directory(checkout.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        String mavenHome = System.getProperty("maven.home");
        assertThat(mavenHome).as("maven.home, set by the build").isNotBlank();
        bash.environment().put("PATH", Path.of(mavenHome, "bin") + File.pathSeparator + System.getenv("PATH"));
        bash.environment().put("JAVA_HOME", System.getProperty("java.home"));
        // The outer build's local repository: the jars it needs are there, and nothing is installed. The
        // JVM flags change nothing the command does: a short Maven run spends less CPU without C2 and a
        // parallel collector, CPU the outer build's modules running beside it on two cores need.
        bash.environment().put("MAVEN_OPTS", "-Dmaven.repo.local="
                + System.getProperty("ratelimit.quickStart.localRepository") + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Process build = bash.start();
        boolean done = build.waitFor(5, TimeUnit.MINUTES);
        if (!done) {
            build.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(done && build.exitValue() == 0).as("README's build command for " + namespace + ":\n" + output)
                .isTrue();
        Path lib = work.resolve(namespace.libName());
        Files.move(checkout.resolve("lib"), lib);
        return lib;
    }

    /**
     * Copies the repository's sources: not its build output ({@code target}, which the outer build
     * is writing meanwhile, so it is not even walked), dot-files or a {@code lib/} at the root.
     */
    private static void copySources(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                if (!dir.equals(from) && skipped(from.relativize(dir))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Path relative = from.relativize(file);
                if (!skipped(relative)) {
                    Files.copy(file, to.resolve(relative.toString()), StandardCopyOption.REPLACE_EXISTING);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static boolean skipped(Path relative) {
        String name = relative.getFileName().toString();
        boolean atRoot = relative.getNameCount() == 1;
        return name.equals("target") || atRoot && (name.startsWith(".") || name.equals("lib"));
    }
}
