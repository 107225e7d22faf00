package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** README's web.xml snippets, so tests deploy what users copy. */
final class ReadmeSnippets {
    private static final Pattern PARAM = Pattern.compile(
            "<param-name>([^<]+)</param-name><param-value>([^<]*)</param-value>");

    private ReadmeSnippets() {
    }

    /** The text of the first xml block after the HTML comment that starts with {@code marker}. */
    static String xml(String marker) throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        int at = readme.indexOf("<!-- " + marker);
        assertThat(at).as("README marks the snippet '%s'", marker).isPositive();
        int start = readme.indexOf("```xml", at) + 6;
        return readme.substring(start, readme.indexOf("```", start));
    }

    /** The init-params of the first xml block after the HTML comment that starts with {@code marker}. */
    static Map<String, String> initParams(String marker) throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
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
