package dev.ratelimit.internal.http.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.http.answer.HttpAnswer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** {@code denialBody}: the template, its escaping per media type, and what startup refuses. */
class DenialBodyTest {
    private static final Map<String, String> FILES = new HashMap<>();

    private static InputStream file(String path) {
        String text = FILES.get(path);
        return text == null ? null : new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static HttpPolicy policy(Function<String, InputStream> resources, String... pairs) {
        Map<String, String> own = new HashMap<>(Map.of("limit", "5", "window", "1m", "policyName", "p<&>\"'"));
        for (int i = 0; i < pairs.length; i += 2) {
            own.put(pairs[i], pairs[i + 1]);
        }
        return HttpPolicy.parser("init-param '%s'").resources(resources).parse(own);
    }

    private static Decision denied(HttpPolicy policy) {
        return Decision.of(false, policy.rule(), 0, Duration.ofMillis(2_100), Duration.ofSeconds(30));
    }

    @Test
    void placeholdersAreFilledAndEscapedPerMediaType() {
        FILES.put("/t.html", "{policy}|{limit}|{window}|{retryAfter}|{status}|{other}|{");
        FILES.put("/t.json", "\"{policy}\"");
        FILES.put("/t.txt", "{policy}");
        FILES.put("/t.any", "{policy}");

        HttpPolicy html = policy(DenialBodyTest::file, "denialBody", "/t.html");
        assertThat(new HttpAnswer(html).contentType()).isEqualTo("text/html");
        assertThat(new HttpAnswer(html).body(denied(html))).isEqualTo("p&lt;&amp;&gt;&quot;&#39;|5|1m|3|429|{other}|{");
        HttpPolicy json = policy(DenialBodyTest::file, "denialBody", "/t.json");
        assertThat(new HttpAnswer(json).contentType()).isEqualTo("application/json");
        assertThat(new HttpAnswer(json).body(denied(json))).isEqualTo("\"p<&>\\\"'\"");
        HttpPolicy text = policy(DenialBodyTest::file, "denialBody", "/t.txt");
        assertThat(new HttpAnswer(text).body(denied(text))).isEqualTo("p<&>\"'");
        HttpPolicy xml = policy(DenialBodyTest::file, "denialBody", "/t.any", "denialContentType",
                "application/problem+xml; charset=UTF-8");
        assertThat(new HttpAnswer(xml).contentType()).isEqualTo("application/problem+xml; charset=UTF-8");
        assertThat(new HttpAnswer(xml).body(denied(xml))).isEqualTo("p&lt;&amp;&gt;&quot;&#39;");
    }

    @Test
    void withoutDenialBodyTheAnswerIsProblemJson() {
        HttpPolicy plain = policy(DenialBodyTest::file);
        assertThat(new HttpAnswer(plain).contentType()).isEqualTo(HttpAnswer.PROBLEM_JSON);
        assertThat(new HttpAnswer(plain).body(denied(plain))).isEqualTo(new HttpAnswer(plain).problemJson(denied(plain)));
    }

    @Test
    void startupRefusesWhatCannotWork() {
        FILES.put("/t.tpl", "x");
        assertThatThrownBy(() -> policy(DenialBodyTest::file, "denialBody", "/missing.html"))
                .hasMessage("init-param 'denialBody' names '/missing.html', which is not in the webapp; add the file "
                        + "(e.g. under /WEB-INF so it is not served itself) or correct the path");
        assertThatThrownBy(() -> policy(DenialBodyTest::file, "denialBody", "WEB-INF/x.html"))
                .hasMessageStartingWith("init-param 'denialBody' must be a path in the webapp starting with '/'");
        assertThatThrownBy(() -> policy(DenialBodyTest::file, "denialBody", "/t.tpl"))
                .hasMessageContaining("init-param 'denialContentType' is required");
        assertThatThrownBy(() -> policy(DenialBodyTest::file, "denialBody", "/t.tpl", "denialContentType", "html"))
                .hasMessage("init-param 'denialContentType' must be a media type such as text/html, but was 'html'");
        assertThatThrownBy(() -> policy(DenialBodyTest::file, "denialContentType", "text/html"))
                .hasMessageStartingWith("init-param 'denialContentType' applies only with denialBody");
        assertThatThrownBy(() -> policy(null, "denialBody", "/t.html"))
                .as("JAX-RS outside a servlet container has no resources")
                .hasMessageContaining("but there is no servlet context to read it from");
    }
}
