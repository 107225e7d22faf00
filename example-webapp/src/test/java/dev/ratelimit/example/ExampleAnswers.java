package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/** What the example must answer, wherever it is deployed: the page, and 429s past each limit. */
final class ExampleAnswers {
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ExampleAnswers() {
    }

    static HttpResponse<String> get(URI uri, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Asks until refused and returns the refusal: exactly {@code limit} admitted first when the burst
     * takes less than the time one permit comes back in ({@code window / limit}), and no more than
     * the permits that came back meanwhile when a loaded machine makes it slower (seen: a 6th
     * token-bucket request admitted after 2 s).
     */
    private static HttpResponse<String> burstUntilRefused(URI uri, int limit, Duration window, String... headers)
            throws IOException, InterruptedException {
        long start = System.nanoTime();
        int admitted = 0;
        HttpResponse<String> answer = get(uri, headers);
        while (answer.statusCode() == 200 && admitted < 4 * limit) {
            admitted++;
            answer = get(uri, headers);
        }
        long elapsed = System.nanoTime() - start;
        assertThat(answer.statusCode()).as("refused after %d admitted", admitted).isEqualTo(429);
        assertThat(admitted).as("admitted by %s in %d ms", uri, elapsed / 1_000_000)
                .isBetween(limit, limit + (int) (elapsed / (window.toNanos() / limit)));
        return answer;
    }

    /** Checks the page, /api/* (10 per 10 s), a /rest/* demo resource (5 per 10 s) and the status page. */
    static void check(URI base) throws IOException, InterruptedException {
        HttpResponse<String> page = get(base);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("id=\"fire\"", "id=\"compare\"", "rest/demo/gcra",
                "href=\"ratelimit/status\"");

        HttpResponse<String> apiDenied = burstUntilRefused(base.resolve("api/hello"), 10, Duration.ofSeconds(10));
        assertThat(apiDenied.headers().firstValue("Retry-After")).isPresent();
        assertThat(apiDenied.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=10;w=10");
        assertThat(get(base.resolve("api/health")).statusCode()).as("excluded").isEqualTo(200);

        for (int i = 0; i < 10; i++) {
            assertThat(get(base.resolve("api/login?password=secret")).statusCode()).as("a success never counts")
                    .isEqualTo(200);
        }
        for (int i = 0; i < 3; i++) {
            assertThat(get(base.resolve("api/login?password=wrong")).statusCode()).as("failed login %d", i + 1)
                    .isEqualTo(401);
        }
        assertThat(get(base.resolve("api/login?password=secret")).statusCode()).as("locked out after 3 failures")
                .isEqualTo(429);

        List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            slow.add(http.sendAsync(HttpRequest.newBuilder(base.resolve("api/slow")).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString()));
        }
        Map<Integer, Long> statuses = new TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> answer : slow) {
            statuses.merge(answer.join().statusCode(), 1L, Long::sum);
        }
        assertThat(statuses).as("2 in flight at once, the rest refused").containsExactly(entry(200, 2L),
                entry(429, 4L));
        assertThat(get(base.resolve("api/slow")).statusCode()).as("the leases were given back").isEqualTo(200);

        // gcra, 2 per 2 s, up to 5 s of wait: at once 2 admitted, then one turn each second; the 5 s
        // allow 5 more (the 7th's turn is just under 5 s away), more if the ten take a second to arrive.
        List<CompletableFuture<HttpResponse<String>>> shaped = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            shaped.add(http.sendAsync(HttpRequest.newBuilder(base.resolve("api/shaped")).timeout(Duration.ofSeconds(20))
                    .build(), HttpResponse.BodyHandlers.ofString()));
        }
        long waited = 0;
        Map<Integer, Long> shapedStatuses = new TreeMap<>();
        for (CompletableFuture<HttpResponse<String>> answer : shaped) {
            HttpResponse<String> response = answer.join();
            shapedStatuses.merge(response.statusCode(), 1L, Long::sum);
            waited += response.headers().firstValue("X-RateLimit-Delay").isPresent() ? 1 : 0;
        }
        assertThat(shapedStatuses.get(200)).as("served now or at their turn: %s", shapedStatuses).isGreaterThanOrEqualTo(7L);
        assertThat(shapedStatuses.get(200) + shapedStatuses.getOrDefault(429, 0L)).isEqualTo(10L);
        assertThat(waited).as("served after a wait: all but the first two (a third if they took a second to arrive)")
                .isBetween(shapedStatuses.get(200) - 3, shapedStatuses.get(200) - 2);

        HttpResponse<String> restDenied = burstUntilRefused(base.resolve("rest/demo/token-bucket"), 5,
                Duration.ofSeconds(10), "X-Demo-Run", "check");
        assertThat(restDenied.headers().firstValue("Retry-After")).isPresent();
        assertThat(restDenied.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(get(base.resolve("rest/demo/token-bucket"), "X-Demo-Run", "another").statusCode())
                .as("another run starts afresh").isEqualTo(200);

        checkStatusPage(base);
    }

    /** The status page, linked from the front page, lists the web.xml policies and the api denial just seen. */
    private static void checkStatusPage(URI base) throws IOException, InterruptedException {
        HttpResponse<String> html = get(base.resolve("ratelimit/status"));
        assertThat(html.statusCode()).isEqualTo(200);
        assertThat(html.body()).startsWith("<!DOCTYPE html>").contains("<svg");
        HttpResponse<String> json = get(base.resolve("ratelimit/status?format=json"));
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/json"));
        assertThat(json.body()).contains("{\"name\":\"api\",\"verdict\":{\"level\":\"ok\"",
                "{\"name\":\"api-key\",", "{\"name\":\"login\",", "{\"name\":\"slow\",");
        // The policies' sections, after the overview, which names each policy first.
        String body = json.body().substring(json.body().indexOf("\"policies\":["));
        String api = body.substring(body.indexOf("{\"name\":\"api\","), body.indexOf("{\"name\":\"api-key\","));
        assertThat(api).as("api was denied once: its one client is the most denied")
                .containsPattern("\"mostDenied\":\\[\\{\"key\":\"[^\"]+\",\"denials\":1\\}\\]");
    }
}
