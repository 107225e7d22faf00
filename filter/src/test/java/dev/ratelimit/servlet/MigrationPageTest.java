package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.Setting;
import dev.ratelimit.internal.http.settings.Settings;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.catalina.filters.RateLimitFilter;
import org.junit.jupiter.api.Test;

/**
 * docs/migration.md's table for Tomcat's RateLimitFilter names every init-param of the Tomcat on
 * the test class path (Tomcat 11 here, Tomcat 9 in the javax build), whose FilterBase sets each
 * through its setter; each row's answer names settings this filter has; and a Tomcat name that is
 * not one of ours stops the webapp, as the page says.
 */
class MigrationPageTest {
    /** A row of a markdown table: its first cell's backticked name, and its last cell. */
    private static final Pattern ROW = Pattern.compile("(?m)^\\| `(\\w+)`[^|]*\\|[^|]*\\| (.*) \\|$");
    private static final Pattern CODE = Pattern.compile("`(\\w+)`");

    /** Tomcat's init-param in the table's first column, and what the page says to write here. */
    private static Map<String, String> tomcatTable() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "migration.md"));
        int start = page.indexOf("## Tomcat's `RateLimitFilter`");
        String table = page.substring(start, page.indexOf("\n\n", page.indexOf("| Tomcat's init-param |", start)));
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = ROW.matcher(table);
        while (row.find()) {
            rows.put(row.group(1), row.group(2));
        }
        return rows;
    }

    private static Set<String> tomcatsInitParams() {
        Set<String> names = new TreeSet<>();
        for (Method method : RateLimitFilter.class.getDeclaredMethods()) {
            if (Modifier.isPublic(method.getModifiers()) && method.getName().startsWith("set")
                    && method.getParameterCount() == 1) {
                String property = method.getName().substring(3);
                names.add(property.substring(0, 1).toLowerCase(Locale.ROOT) + property.substring(1));
            }
        }
        return names;
    }

    @Test
    void theTableListsEveryInitParamOfTomcatsFilter() throws IOException {
        assertThat(tomcatsInitParams()).as("Tomcat's setters").contains("bucketRequests", "enforce");
        assertThat(tomcatTable().keySet()).containsAll(tomcatsInitParams());
    }

    @Test
    void eachAnswerNamesSettingsOfThisFilter() throws IOException {
        Set<String> ours = Settings.ALL.stream().map(Setting::name).collect(Collectors.toSet());
        tomcatTable().forEach((tomcat, here) -> {
            Matcher word = CODE.matcher(here);
            boolean named = false;
            while (word.find()) {
                named |= ours.contains(word.group(1));
            }
            assertThat(named || here.startsWith("none")).as("the row of %s: %s", tomcat, here).isTrue();
        });
    }

    @Test
    void aTomcatNameThatIsNotOneOfOursStopsTheWebapp() throws IOException {
        Set<String> ours = Settings.ALL.stream().map(Setting::name).collect(Collectors.toSet());
        for (String tomcat : tomcatTable().keySet()) {
            Map<String, String> params = new LinkedHashMap<>(Map.of("limit", "5", "window", "1m"));
            if (ours.contains(tomcat)) {
                continue;
            }
            params.put(tomcat, "true");
            assertThatThrownBy(() -> HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                    .parse(params)).as(tomcat).hasMessageStartingWith("unknown init-param '" + tomcat + "'");
        }
    }
}
