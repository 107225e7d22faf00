package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.settings.HttpPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * docs/servers.md's "Around the filter" shows what ContainerRequestsIT runs: the login servlet's
 * code is RealmLoginServlet's, and the static files' init-param is one the filter takes.
 */
class ServersPageTest {
    private static String section(String heading) throws IOException {
        String page = Files.readString(Path.of("..", "docs", "servers.md"));
        int start = page.indexOf("### " + heading);
        assertThat(start).as("docs/servers.md has '%s'", heading).isPositive();
        int end = page.indexOf("\n#", start + 4);
        return page.substring(start, end < 0 ? page.length() : end);
    }

    private static String block(String section, String language) {
        int start = section.indexOf("```" + language + "\n") + language.length() + 4;
        return section.substring(start, section.indexOf("```", start));
    }

    @Test
    void theLoginServletShownIsTheOneTheTestRuns() throws IOException {
        // The jakarta source: the javax build runs a generated copy of this test and of the servlet.
        String servlet = Files.readString(Path.of("..", "filter", "src", "test", "java", "dev", "ratelimit", "servlet",
                "RealmLoginServlet.java"));
        List<String> lines = block(section("Container FORM login"), "java").lines()
                .map(line -> line.replaceFirst("\\s*//.*$", "").strip()).filter(line -> !line.isEmpty()).toList();
        assertThat(lines).hasSizeGreaterThan(5).allSatisfy(line -> assertThat(servlet).contains(line));
    }

    @Test
    void theStaticFilesInitParamIsOneTheFilterTakes() throws IOException {
        Map<String, String> params = new LinkedHashMap<>(Map.of("limit", "5", "window", "1m"));
        String xml = block(section("Static files"), "xml");
        params.put(xml.replaceFirst("(?s).*<param-name>([^<]+)</param-name>.*", "$1"),
                xml.replaceFirst("(?s).*<param-value>([^<]+)</param-value>.*", "$1"));
        assertThat(params).containsEntry("excludePaths", "/static/*");
        HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name").parse(params);
        assertThat(policy.requests().appliesTo("GET", "/static/app.css")).isFalse();
        assertThat(policy.requests().appliesTo("GET", "/index.html")).isTrue();
    }
}
