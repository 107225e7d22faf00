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
 * README's dependency snippets, CHANGELOG's newest release and the build's version name one
 * release. (The POM metadata Maven Central needs is checked by the root's publish-metadata
 * enforcer execution, not here.)
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
    void readmeDependencySnippetsNameTheChangelogsNewestRelease() throws IOException {
        String newest = releases().get(0);
        Matcher snippet = DEPENDENCY.matcher(read("README.md"));
        int snippets = 0;
        while (snippet.find()) {
            snippets++;
            assertThat(snippet.group(2))
                    .as("README's <dependency> on %s: the version of CHANGELOG's newest release", snippet.group(1))
                    .isEqualTo(newest);
        }
        assertThat(snippets).as("README's dependency snippets").isPositive();
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
