package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.settings.Setting;
import dev.ratelimit.internal.http.settings.Settings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The table of what holds when features meet on one client (issue 48) is one table, carried by
 * README.md, docs/configuration.md and docs/leases.md: the three copies agree (links aside, which
 * each page writes from where it is), and every setting its first column names is one the schema
 * knows, so a renamed setting cannot leave the table promising something of a name that is gone.
 */
class GuaranteeTableTest {
    private static final Path ROOT = Path.of("..");
    private static final List<String> PAGES = List.of("README.md", "docs/configuration.md", "docs/leases.md");
    private static final String START = "<!-- guarantees";
    private static final String END = "<!-- /guarantees -->";
    /** Words in backticks that are not settings: values, API methods, algorithms. */
    private static final Set<String> NOT_SETTINGS = Set.of("reset", "resetEach", "resetClient", "limit", "sliding-window",
            "gcra", "token-bucket", "fixed-window", "transport=transaction", "onRedisFailure=local", "localLimit",
            "RateLimiter.charge", "tryAcquire(key, maxDelay)", "TestOnlyRedis.reset");

    @Test
    void theThreePagesCarryOneTable() throws IOException {
        String readme = table("README.md");
        for (String page : PAGES) {
            assertThat(table(page)).as(page + "'s table, links aside").isEqualTo(readme);
        }
    }

    @Test
    void everySettingTheTableNamesIsInTheSchema() throws IOException {
        Set<String> known = Settings.ALL.stream().map(Setting::name).collect(Collectors.toCollection(TreeSet::new));
        List<String> unknown = new ArrayList<>();
        for (String row : table("README.md").split("\n")) {
            if (!row.startsWith("| ") || row.startsWith("| on one client")) {
                continue;
            }
            String first = row.substring(2, row.indexOf(" |", 1));
            Matcher named = Pattern.compile("`([^`]+)`").matcher(first);
            while (named.find()) {
                String name = named.group(1);
                if (!NOT_SETTINGS.contains(name) && !known.contains(name)) {
                    unknown.add(name + " (in: " + first + ")");
                }
            }
        }
        assertThat(unknown).as("settings the table names that the schema does not know").isEmpty();
    }

    /** The page's table between its markers, with links made relative to the repository's root. */
    private static String table(String page) throws IOException {
        String text = Files.readString(ROOT.resolve(page), StandardCharsets.UTF_8);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertThat(start).as(page + " carries the table (" + START + " ... " + END + ")").isNotNegative();
        assertThat(end).as(page + " ends the table").isGreaterThan(start);
        return text.substring(start, end).replace("](docs/", "](").replace("](../", "](");
    }
}
