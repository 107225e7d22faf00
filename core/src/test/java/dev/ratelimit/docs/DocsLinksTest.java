package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documentation's links between its own files hold: each names a file that exists and, after
 * a {@code #}, a heading of it (as GitHub makes anchors) or an {@code <a id>} in it; and README's
 * documentation list reaches every page under docs/. The pages beside the bench are read too.
 */
class DocsLinksTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern ID = Pattern.compile("<a id=\"([^\"]+)\">");

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md"),
                ROOT.resolve("ARCHITECTURE.md"), ROOT.resolve("CHANGELOG.md")));
        for (String folder : List.of("docs", "bench")) {
            try (Stream<Path> docs = Files.list(ROOT.resolve(folder))) {
                docs.filter(page -> page.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    /** The page's text outside its fenced code blocks. */
    private static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean code = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            code ^= line.startsWith("```");
            if (!code && !line.startsWith("```")) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** The anchors a page offers: its headings as GitHub makes them, and its {@code <a id>}s. */
    private static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new HashSet<>();
        for (String line : prose(page)) {
            if (line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").trim();
                String anchor = heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
                String unique = anchor;
                for (int n = 1; !anchors.add(unique); n++) {
                    unique = anchor + "-" + n;
                }
            }
            Matcher id = ID.matcher(line);
            while (id.find()) {
                anchors.add(id.group(1));
            }
        }
        return anchors;
    }

    @Test
    void everyLinkBetweenTheDocsFindsItsFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            for (String line : prose(page)) {
                Matcher link = LINK.matcher(line);
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue;
                    }
                    checked++;
                    int hash = target.indexOf('#');
                    Path file = hash == 0 ? page : page.getParent().resolve(hash < 0 ? target : target.substring(0, hash));
                    if (!Files.exists(file)) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                    } else if (hash >= 0 && file.toString().endsWith(".md")
                            && !anchors(file).contains(target.substring(hash + 1))) {
                        broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                    }
                }
            }
        }
        assertThat(checked).as("links checked").isGreaterThan(100);
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    @Test
    void readmeLinksEveryPageUnderDocs() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        Set<String> linked = new HashSet<>();
        Matcher link = LINK.matcher(readme);
        while (link.find()) {
            linked.add(link.group(1).replaceFirst("#.*", ""));
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            assertThat(docs.map(page -> "docs/" + page.getFileName()).collect(Collectors.toList()))
                    .as("pages under docs/").contains("docs/rollout.md").allMatch(linked::contains);
        }
    }
}
