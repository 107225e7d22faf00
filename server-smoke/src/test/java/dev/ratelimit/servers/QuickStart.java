package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servers.ServerLine.Namespace;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * README's quick start, read from README and done as written: the jars its build command filled
 * (module quick-start runs the command), its web.xml taken verbatim (the jakarta one with README's
 * jakarta header), and the answers it shows.
 */
final class QuickStart {
    private static final Path README = Path.of("..", "README.md");
    private static final String JAVAX_MARKER = "<!-- quick start web.xml (javax)";
    private static final String JAKARTA_MARKER = "<!-- quick start web.xml header (jakarta)";
    private static final String ANSWERS = "`429 Too Many Requests`, with `Retry-After` in seconds:";

    private final String readme;

    private QuickStart(String readme) {
        this.readme = readme;
    }

    static QuickStart fromReadme() throws IOException {
        return new QuickStart(Files.readString(README, StandardCharsets.UTF_8));
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
     * The {@code lib} directory README's build command filled for {@code namespace}: module
     * quick-start runs the command ({@code QuickStartBuildIT}) and leaves it in its target directory.
     */
    static Path builtLib(Namespace namespace) throws IOException {
        Path libs = Path.of(System.getProperty("ratelimit.smoke.quickStartLibs")).normalize();
        Path lib = libs.resolve("lib-" + namespace.name().toLowerCase(Locale.ROOT));
        assertThat(Files.isDirectory(lib) && !names(lib).isEmpty())
                .as("README's quick start jars for %s in %s: module quick-start builds them in its integration test"
                        + " (QuickStartBuildIT); run it first, not with -DskipTests: mvn -B -pl server-smoke -am verify",
                        namespace, lib)
                .isTrue();
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

    /** The names in {@code dir}, sorted (for a failure's message too). */
    static List<String> names(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(file -> names.add(file.getFileName().toString()));
        }
        names.sort(null);
        return names;
    }
}
