package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The web.xml snippets of README and docs/, so tests deploy what users copy. */
final class ReadmeSnippets {
    private static final Pattern PARAM = Pattern.compile(
            "<param-name>([^<]+)</param-name><param-value>([^<]*)</param-value>");

    private ReadmeSnippets() {
    }

    /**
     * README and the pages under {@code docs/} as one text: a snippet is found by its marker
     * wherever the documentation keeps it.
     */
    static String documentation() throws IOException {
        StringBuilder all = new StringBuilder(Files.readString(Path.of("..", "README.md")));
        try (java.util.stream.Stream<Path> pages = Files.list(Path.of("..", "docs"))) {
            for (Path page : (Iterable<Path>) pages.sorted()::iterator) {
                all.append('\n').append(Files.readString(page));
            }
        }
        return all.toString();
    }

    /** The text of the first xml block after the HTML comment that starts with {@code marker}. */
    static String xml(String marker) throws IOException {
        String readme = documentation();
        int at = readme.indexOf("<!-- " + marker);
        assertThat(at).as("README marks the snippet '%s'", marker).isPositive();
        int start = readme.indexOf("```xml", at) + 6;
        return readme.substring(start, readme.indexOf("```", start));
    }

    /** The init-params of the first xml block after the HTML comment that starts with {@code marker}. */
    static Map<String, String> initParams(String marker) throws IOException {
        String readme = documentation();
        int at = readme.indexOf("<!-- " + marker);
        assertThat(at).as("README marks the snippet '%s'", marker).isPositive();
        int start = readme.indexOf("```xml", at);
        Matcher param = PARAM.matcher(readme.substring(start, readme.indexOf("```", start + 6)));
        Map<String, String> params = new LinkedHashMap<>();
        while (param.find()) {
            params.put(param.group(1), param.group(2));
        }
        return params;
    }
}
