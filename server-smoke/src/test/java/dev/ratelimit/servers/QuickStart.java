package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servers.ServerLine.Namespace;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * README's quick start, read from README and done as written: its build command run with bash in
 * a fresh copy of the repository (the jakarta one with the change README names), its web.xml
 * taken verbatim (the jakarta one with README's jakarta header), and the answers it shows.
 */
final class QuickStart {
    private static final Path README = Path.of("..", "README.md");
    private static final String JAVAX_MARKER = "<!-- quick start web.xml (javax)";
    private static final String JAKARTA_MARKER = "<!-- quick start web.xml header (jakarta)";
    private static final String BUILD_STEP = "**1. Build the jars**";
    private static final String ANSWERS = "`429 Too Many Requests`, with `Retry-After` in seconds:";

    private final String readme;

    private QuickStart(String readme) {
        this.readme = readme;
    }

    static QuickStart fromReadme() throws IOException {
        return new QuickStart(Files.readString(README, StandardCharsets.UTF_8));
    }

    /** The shell command of step 1, as README gives it for {@code namespace}. */
    String buildCommand(Namespace namespace) {
        String command = block(BUILD_STEP, "```sh").strip();
        assertThat(command).as("README's build command is for javax, and says what jakarta changes")
                .contains("-pl filter-javax ");
        assertThat(readme).contains("*jakarta*: `-pl filter` instead of `-pl filter-javax`");
        return namespace == Namespace.JAVAX ? command : command.replace("-pl filter-javax ", "-pl filter ");
    }

    /** The web.xml of step 3 for {@code namespace}. */
    String webXml(Namespace namespace) {
        String javax = block(JAVAX_MARKER, "```xml");
        if (namespace == Namespace.JAVAX) {
            return javax;
        }
        String jakartaHeader = block(JAKARTA_MARKER, "```xml").strip();
        String javaxHeader = javax.lines().filter(line -> line.startsWith("<web-app ")).findFirst().orElseThrow();
        return javax.replace(javaxHeader, jakartaHeader);
    }

    /** The lines of the answers README shows at step 5, without the "…" that stands for the rest. */
    List<String> shownAnswers() {
        return block(ANSWERS, "```\n").lines().map(String::strip).filter(line -> !line.isEmpty() && !line.equals("…"))
                .toList();
    }

    /**
     * The exploded WAR of the quick start as {@code into/name}: README's web.xml, the jars of
     * {@code lib} in WEB-INF/lib, and a page of the application's own at {@code /}.
     */
    Path writeWar(Path into, String name, Namespace namespace, Path lib) throws IOException {
        Path war = Files.createDirectories(into.resolve(name));
        Path webInf = Files.createDirectories(war.resolve("WEB-INF"));
        Files.writeString(webInf.resolve("web.xml"), webXml(namespace));
        StandaloneServer.copyTree(lib, webInf.resolve("lib"));
        Files.writeString(war.resolve("index.html"), "<p>the application</p>\n");
        return war;
    }

    /**
     * Runs the build command of step 1 with bash in a copy of the repository (its sources, not its
     * {@code target} directories: fresh for the first namespace, the second reusing what the first
     * compiled, as one user building both would), with the outer build's Maven and local
     * repository, and returns the {@code lib} directory it filled, moved aside for the next.
     */
    Path buildLib(Namespace namespace, Path work) throws IOException, InterruptedException {
        Path checkout = work.resolve("checkout");
        if (!Files.isDirectory(checkout)) {
            copySources(Path.of("..").toAbsolutePath().normalize(), checkout);
        }
        ProcessBuilder bash = new ProcessBuilder("bash", "-c", buildCommand(namespace)).directory(checkout.toFile())
                .redirectErrorStream(true).redirectOutput(work.resolve("build-" + namespace + ".log").toFile());
        String mavenHome = System.getProperty("maven.home");
        assertThat(mavenHome).as("maven.home, set by the build").isNotBlank();
        bash.environment().put("PATH", Path.of(mavenHome, "bin") + File.pathSeparator + System.getenv("PATH"));
        bash.environment().put("JAVA_HOME", System.getProperty("java.home"));
        // The outer build's local repository: the jars it needs are there, and nothing is installed. The
        // JVM flags change nothing the command does: a short Maven run spends less CPU without C2 and a
        // parallel collector, CPU the servers starting beside it on two cores need.
        bash.environment().put("MAVEN_OPTS", "-Dmaven.repo.local=" + System.getProperty("ratelimit.smoke.localRepository")
                + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC");
        Process build = bash.start();
        boolean done = build.waitFor(5, TimeUnit.MINUTES);
        String log = Files.readString(work.resolve("build-" + namespace + ".log"));
        assertThat(done && build.exitValue() == 0).as("README's build command for " + namespace + ":\n" + log).isTrue();
        Path lib = work.resolve("lib-" + namespace.name().toLowerCase(Locale.ROOT));
        Files.move(checkout.resolve("lib"), lib);
        return lib;
    }

    private String block(String marker, String fence) {
        return block(marker, fence, 1);
    }

    /** The text of the {@code nth} fenced block opened by {@code fence} after {@code marker}. */
    private String block(String marker, String fence, int nth) {
        int at = readme.indexOf(marker);
        assertThat(at).as("README has '%s'", marker).isNotNegative();
        int start = at;
        for (int i = 0; i < nth; i++) {
            start = readme.indexOf(fence, start);
            assertThat(start).as("a %s block after '%s'", fence, marker).isNotNegative();
            start += fence.length();
        }
        int newline = readme.indexOf('\n', start - 1);
        return readme.substring(newline + 1, readme.indexOf("```", newline + 1));
    }

    /** The repository's sources: not its build output ({@code target}), dot-files or a {@code lib/}. */
    private static void copySources(Path from, Path to) throws IOException {
        StandaloneServer.copyTree(from, to, relative -> {
            if (relative.toString().isEmpty()) {
                return false;
            }
            String first = relative.getName(0).toString();
            boolean skipped = first.startsWith(".") || first.equals("lib");
            for (Path part : relative) {
                skipped |= part.toString().equals("target");
            }
            return skipped;
        });
    }

    /** For a failure's message. */
    static List<String> names(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(file -> names.add(file.getFileName().toString()));
        }
        names.sort(null);
        return names;
    }
}
