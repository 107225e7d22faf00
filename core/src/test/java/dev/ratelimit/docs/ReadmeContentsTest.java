package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** README's contents line lists every section of README, in order, each linked to its heading. */
class ReadmeContentsTest {
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)\\]\\(#([^)]+)\\)");

    @Test
    void theContentsLineLinksEverySectionInOrder() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        StringBuilder contents = new StringBuilder();
        List<String> sections = new ArrayList<>();
        boolean inContents = false;
        boolean inCode = false;
        for (String line : lines) {
            if (line.startsWith("**Contents:**")) {
                inContents = true;
            }
            if (inContents) {
                inContents = !line.isBlank();
                contents.append(line).append(' ');
            }
            inCode ^= line.startsWith("```");
            if (!inCode && line.startsWith("## ")) {
                String heading = line.substring(3).trim();
                sections.add("[" + heading + "](#" + anchor(heading) + ")");
            }
        }
        List<String> listed = new ArrayList<>();
        Matcher link = LINK.matcher(contents);
        while (link.find()) {
            listed.add(link.group());
        }
        assertThat(sections).as("README's sections").isNotEmpty();
        assertThat(listed).as("README's contents line").containsExactlyElementsOf(sections);
    }

    /** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
    private static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }
}
