package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The settings schema, and the documentation's init-param tables kept true to it: the
 * configuration reference lists every setting, README's the few everyone sets.
 */
class SettingsTest {
    private static final Pattern CODE = Pattern.compile("`([^`]*)`");

    /** A page's init-param table: each name in the first column with the second column's text. */
    private static Map<String, String> table(String page) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("..", page), StandardCharsets.UTF_8);
        int header = lines.indexOf("| init-param | default | meaning |");
        assertThat(header).as(page + " has the init-param table").isPositive();
        Map<String, String> table = new LinkedHashMap<>();
        for (String line : lines.subList(header + 2, lines.size())) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\|", -1);
            Matcher names = CODE.matcher(cells[1]);
            String documentedDefault = cells[2].trim().replace("`", "");
            while (names.find()) {
                table.put(names.group(1), documentedDefault);
            }
        }
        return table;
    }

    @Test
    void theReferenceListsExactlyTheSchemasSettingsInOrderWithTheSameDefaults() throws IOException {
        Map<String, String> reference = table("docs/configuration.md");
        Map<String, String> schema = new LinkedHashMap<>();
        Settings.ALL.forEach(setting -> schema.put(setting.name(), setting.documentedDefault()));

        assertThat(new ArrayList<>(reference.keySet())).containsExactlyElementsOf(schema.keySet());
        assertThat(reference).containsExactlyEntriesOf(schema);
    }

    /** README's short table: settings of the schema, with the reference's defaults and words. */
    @Test
    void readmesFewSettingsAreTheReferencesOwn() throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        List<String> reference = Files.readAllLines(Path.of("..", "docs/configuration.md"), StandardCharsets.UTF_8);
        Map<String, String> few = table("README.md");
        assertThat(few).as("README's settings").isNotEmpty();
        for (String row : readme.subList(readme.indexOf("| init-param | default | meaning |") + 2, readme.size())) {
            if (!row.startsWith("|")) {
                break;
            }
            // Links point one level up from docs/; the words are the same.
            assertThat(reference).as("README's row, as the reference has it").contains(
                    row.replace("](docs/", "](").replace("](configuration.md#", "](#"));
        }
    }

    /** CHANGELOG's list of the filter's settings: every setting of the schema, in its order. */
    @Test
    void theChangelogListsEverySetting() throws IOException {
        String changelog = Files.readString(Path.of("..", "CHANGELOG.md"), StandardCharsets.UTF_8);
        int start = changelog.indexOf("Settings: ");
        assertThat(start).as("CHANGELOG.md lists the settings after 'Settings: '").isPositive();
        Matcher names = CODE.matcher(changelog.substring(start, changelog.indexOf(".\n", start)));
        List<String> listed = new ArrayList<>();
        while (names.find()) {
            listed.add(names.group(1));
        }
        List<String> schema = new ArrayList<>();
        Settings.ALL.forEach(setting -> schema.add(setting.name()));
        assertThat(listed).containsExactlyElementsOf(schema);
    }

    @Test
    void aDocumentedDefaultThatIsAValueParsesToTheDefaultInForce() {
        for (Setting<?> setting : Settings.ALL) {
            if (setting.defaultValue() == null) {
                continue;
            }
            String documented = setting.documentedDefault();
            if (documented.equals("none") || documented.equals("all")) {
                // Words for "nothing", not values: the default is the empty list or no proxy.
                assertThat(setting.defaultValue().toString()).as(setting.name()).isIn("[]", "none");
                continue;
            }
            assertThat((Object) setting.parse(documented)).as(setting.name()).isEqualTo(setting.defaultValue());
        }
    }

    @Test
    void everySettingIsDeclaredOnceWithADoc() {
        assertThat(Settings.ALL).extracting(Setting::name).doesNotHaveDuplicates();
        for (Setting<?> setting : Settings.ALL) {
            assertThat(Settings.named(setting.name())).isSameAs(setting);
            assertThat(setting.doc()).as(setting.name()).isNotBlank();
            assertThat(setting.expected()).as(setting.name()).isNotBlank();
        }
        assertThat(Settings.REDIS_URI.isSecret()).isTrue();
        assertThat(Settings.named("limt")).isNull();
    }

    @Test
    void collectTakesThePrefixedNamesAndLeavesTheRest() {
        Map<String, String> values = Map.of("ratelimit.limit", "5", "jersey.config.x", "y", "ratelimit.window", "1m");
        assertThat(Settings.collect(List.of("ratelimit.limit", "jersey.config.x", "ratelimit.window", "ratelimit.gone"),
                values::get, Settings.PREFIX)).containsExactly(Map.entry("limit", "5"), Map.entry("window", "1m"));
        assertThat(Settings.collect(List.of("limit"), Map.of("limit", "7")::get, "")).containsExactly(
                Map.entry("limit", "7"));
    }
}
