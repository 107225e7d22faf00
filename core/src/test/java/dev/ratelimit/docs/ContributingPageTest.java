package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * CONTRIBUTING.md says what the build runs: the server lines of the smoke suite as
 * {@code ServerLine} declares them, and every limited path of the example webapp.
 */
class ContributingPageTest {
    private static final Path ROOT = Path.of("..");
    /** A constant of the ServerLine enum: its label first. */
    private static final Pattern SERVER_LINE = Pattern.compile("(?m)^\\s+[A-Z0-9_]+\\(\"([^\"]+)\",");
    private static final String VERSION = "\\d+(?:\\.\\d+)?(?: ee\\d+)?";
    /** Servers as the page lists them: "Tomcat 7, 8.5 and 9", "Jetty 12 ee8, 12 ee9 and 12 ee10". */
    private static final Pattern SERVERS = Pattern.compile("(Tomcat|Jetty) (" + VERSION + "(?:(?:, | and )" + VERSION
            + ")*)");
    private static final Pattern URL_PATTERN = Pattern.compile("<url-pattern>([^<]+)</url-pattern>");

    private static String read(String file) throws IOException {
        return Files.readString(ROOT.resolve(file), StandardCharsets.UTF_8);
    }

    /** The servers named in the text, each once, as its line's label, e.g. "Jetty 12 ee10". */
    private static Set<String> servers(String text) {
        Set<String> servers = new LinkedHashSet<>();
        Matcher list = SERVERS.matcher(text.replaceAll("\\s+", " "));
        while (list.find()) {
            for (String version : list.group(2).split(", | and ")) {
                servers.add(list.group(1) + " " + version);
            }
        }
        return servers;
    }

    @Test
    void theSmokeSuitesServerLinesAreTheOnesItDeclares() throws IOException {
        List<String> declared = new ArrayList<>();
        Matcher line = SERVER_LINE.matcher(read("server-smoke/src/test/java/dev/ratelimit/servers/ServerLine.java"));
        while (line.find()) {
            declared.add(line.group(1));
        }
        assertThat(declared).as("ServerLine's labels").contains("Tomcat 7", "Jetty 12 ee10");

        String page = read("CONTRIBUTING.md");
        int row = page.indexOf("| `server-smoke` |");
        assertThat(servers(page.substring(row, page.indexOf('\n', row)))).as("the module table's server-smoke row")
                .containsExactlyInAnyOrderElementsOf(declared);
        int tests = page.indexOf("`ServerLinesSmokeIT`\n(module `server-smoke`)");
        assertThat(tests).as("the Tests section names ServerLinesSmokeIT").isPositive();
        assertThat(servers(page.substring(tests, page.indexOf("each", tests)))).as("the Tests section")
                .containsExactlyInAnyOrderElementsOf(declared);
    }

    @Test
    void theExampleSectionNamesEveryPathItsFiltersLimit() throws IOException {
        String webXml = read("example-webapp/src/main/webapp/WEB-INF/web.xml");
        String page = read("CONTRIBUTING.md");
        String example = page.substring(page.indexOf("## The example webapp"), page.indexOf("## Tests"));
        List<String> limited = new ArrayList<>();
        for (String mapping : webXml.split("<filter-mapping>")) {
            Matcher pattern = URL_PATTERN.matcher(mapping.split("</filter-mapping>")[0]);
            while (mapping.contains("</filter-mapping>") && pattern.find()) {
                limited.add(pattern.group(1));
            }
        }
        assertThat(limited).as("the example's filter mappings").contains("/api/*", "/api/shaped");
        for (String path : limited) {
            assertThat(example).as("CONTRIBUTING's example section").contains("`" + path + "`");
        }
    }
}
