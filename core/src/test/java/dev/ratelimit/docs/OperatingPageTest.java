package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.webapp.Webapp;
import dev.ratelimit.internal.jmx.RateLimiterJmx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/operating.md and docs/rollout.md name the policies' JMX beans as they are registered, so that
 * a query or a jmx_exporter rule written from the pages matches them.
 */
class OperatingPageTest {
    @Test
    void thePageWritesTheBeanNamesAsTheyAreRegistered() throws IOException {
        String page = Files.readString(Path.of("..", "docs/operating.md"), StandardCharsets.UTF_8);
        assertThat(page).contains("`" + RateLimiterJmx.name(Webapp.jmxName("/shop"), "api", 1) + "`")
                .as("the root webapp").contains("`" + RateLimiterJmx.name(Webapp.jmxName(""), "api", 1) + "`");
    }

    @Test
    void theRolloutPageWritesTheBeanNameAsItIsRegistered() throws IOException {
        String page = Files.readString(Path.of("..", "docs/rollout.md"), StandardCharsets.UTF_8);
        assertThat(page).contains("`" + RateLimiterJmx.name(Webapp.jmxName("/shop"), "api", 1) + "`");
    }
}
