package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** An HTTP-only run rewrites the HTTP section and the notes, and nothing else. */
class HttpBenchMarkdownTest {
    private static final String NOTES = "## Why some targets are missed\n\nNew notes.\n";
    private static final String FILE = "# Benchmarks\n\nTop.\n\n## Redis memory per client key\n\nMemory.\n"
            + "\n## HTTP\n\nOld HTTP.\n\n### 100 clients\n\nOld table.\n"
            + "\n## Targets (16 threads)\n\nTargets.\n"
            + "\n## Why some targets are missed\n\nOld notes.\n\n### HTTP\n\nOld HTTP notes.\n";
    private static final String SECTION = "\n## HTTP\n\nNew HTTP.\n\n### 100 clients\n\nNew table.\n";

    @Test
    void theHttpSectionAndTheNotesAreReplacedInPlace() {
        String spliced = HttpBenchMarkdown.splice(FILE, SECTION, NOTES);

        assertThat(spliced).isEqualTo("# Benchmarks\n\nTop.\n\n## Redis memory per client key\n\nMemory.\n"
                + "\n## HTTP\n\nNew HTTP.\n\n### 100 clients\n\nNew table.\n"
                + "\n## Targets (16 threads)\n\nTargets.\n"
                + "\n## Why some targets are missed\n\nNew notes.\n");
        assertThat(HttpBenchMarkdown.splice(spliced, SECTION, NOTES)).as("a second run changes nothing").isEqualTo(spliced);
    }

    @Test
    void withoutNotesTheEndOfTheFileStays() {
        assertThat(HttpBenchMarkdown.splice(FILE, SECTION, null)).endsWith("Old notes.\n\n### HTTP\n\nOld HTTP notes.\n")
                .contains("New table.").doesNotContain("Old table.");
    }

    @Test
    void aFileWithoutAnHttpSectionGetsOneBeforeTheNotes() {
        String spliced = HttpBenchMarkdown.splice("# Benchmarks\n\nTop.\n\n## Why some targets are missed\n\nOld.\n",
                SECTION, NOTES);

        assertThat(spliced).isEqualTo("# Benchmarks\n\nTop.\n" + SECTION + "\n" + NOTES);
    }
}
