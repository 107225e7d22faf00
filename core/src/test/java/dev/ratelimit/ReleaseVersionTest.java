package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The documentation's dependency snippets name the version the build makes (a snapshot until the
 * release is on Maven Central: coordinates that resolve today), and the build is CHANGELOG's
 * newest release or its snapshot. (The POM metadata Maven Central needs is checked by the root's
 * publish-metadata enforcer execution, not here.)
 */
class ReleaseVersionTest {
    private static final Pattern RELEASE_HEADING = Pattern.compile("## \\[(\\d+\\.\\d+\\.\\d+)] - (\\d{4}-\\d{2}-\\d{2}|Unreleased)");
    private static final Pattern DEPENDENCY = Pattern.compile(
            "<dependency>\\s*<groupId>dev\\.ratelimit</groupId>\\s*<artifactId>(ratelimit-[\\w-]+)</artifactId>[^\\n]*\\s*<version>([^<]*)</version>");
    private static final Pattern PARENT_VERSION = Pattern.compile(
            "<artifactId>ratelimit-parent</artifactId>\\s*<version>([^<]*)</version>");

    private static String read(String file) throws IOException {
        return new String(Files.readAllBytes(Path.of("..", file)), StandardCharsets.UTF_8);
    }

    /** CHANGELOG's release headings, newest first, each as "## [x.y.z] - date or Unreleased". */
    private static List<String> releases() throws IOException {
        List<String> versions = new ArrayList<>();
        for (String line : read("CHANGELOG.md").split("\n")) {
            if (line.startsWith("## ") && !line.equals("## [Unreleased]")) {
                Matcher heading = RELEASE_HEADING.matcher(line);
                assertThat(heading.matches())
                        .as("CHANGELOG heading '%s' has the form '## [1.2.3] - 2025-01-31' (or '- Unreleased')", line)
                        .isTrue();
                versions.add(heading.group(1));
            }
        }
        assertThat(versions).as("CHANGELOG.md names a release").isNotEmpty();
        return versions;
    }

    @Test
    void dependencySnippetsNameTheVersionTheBuildMakes() throws IOException {
        Matcher version = PARENT_VERSION.matcher(read("pom.xml"));
        assertThat(version.find()).as("the root pom's version").isTrue();
        int snippets = 0;
        for (String page : documentation()) {
            Matcher snippet = DEPENDENCY.matcher(read(page));
            while (snippet.find()) {
                snippets++;
                assertThat(snippet.group(2)).as("%s's <dependency> on %s: the version the build makes", page,
                        snippet.group(1)).isEqualTo(version.group(1));
            }
        }
        assertThat(snippets).as("the documentation's dependency snippets").isPositive();
    }

    /** README and the pages under docs/, as paths from the repository's root. */
    private static List<String> documentation() throws IOException {
        List<String> pages = new ArrayList<>();
        pages.add("README.md");
        try (java.util.stream.Stream<Path> files = Files.list(Path.of("..", "docs"))) {
            files.map(file -> "docs/" + file.getFileName()).sorted().forEach(pages::add);
        }
        return pages;
    }

    @Test
    void theBuildIsTheChangelogsNewestReleaseOrItsSnapshot() throws IOException {
        String newest = releases().get(0);
        Matcher version = PARENT_VERSION.matcher(read("pom.xml"));
        assertThat(version.find()).as("the root pom's version").isTrue();
        assertThat(version.group(1))
                .as("the root pom's version: CHANGELOG's newest release, or its snapshot while it is built")
                .isIn(newest, newest + "-SNAPSHOT");
    }
}
