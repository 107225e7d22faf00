package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which samples are the limiter's, and how each row's profile is written beside BENCHMARKS.md. */
class JfrTopFramesTest {
    private static final String CHAIN = "org.apache.catalina.core.ApplicationFilterChain";
    private static final String FILTER = "dev.ratelimit.servlet.RateLimitFilter";

    @Test
    void aSampleIsTheLimitersWhenItsCodeIsTheNearestCallerAboveTheChain() {
        assertThat(JfrTopFrames.limiterFrame(List.of("java.util.HashMap", "dev.ratelimit.internal.support.RedisKeys", FILTER,
                CHAIN))).as("the limiter's own work").isEqualTo(1);
        assertThat(JfrTopFrames.limiterFrame(List.of("org.apache.catalina.connector.Response", FILTER, CHAIN)))
                .as("a header the filter writes").isEqualTo(1);
        assertThat(JfrTopFrames.limiterFrame(List.of("dev.ratelimit.bench.HttpBenchServer$Hello",
                "jakarta.servlet.http.HttpServlet", CHAIN, FILTER, CHAIN))).as("the servlet, under the filter").isEqualTo(-1);
        assertThat(JfrTopFrames.limiterFrame(List.of("org.apache.coyote.http11.Http11Processor")))
                .as("Tomcat alone").isEqualTo(-1);
    }

    @Test
    void eachRowsProfileListsItsTopMethodsAndTheLimitersOwn() {
        List<HttpBench.Row> rows = new ArrayList<>();
        List<JfrTopFrames.Summary> profiles = new ArrayList<>();
        for (int clients : new int[] {HttpBench.MANY_CLIENTS, HttpBench.BUSY_CLIENTS}) {
            rows.add(new HttpBench.Row(HttpBench.NO_FILTER, clients, 40_000, 0.3, 2, 25, 0, 0, 12, 0, 0));
            profiles.add(new JfrTopFrames.Summary(200, 0, List.of("org.apache.coyote.Response.action"), List.of(20L),
                    List.of(), List.of()));
            rows.add(new HttpBench.Row("`gcra`", clients, 20_000, 0.8, 3, 50, 15, 0.3, 14, 0, 0));
            profiles.add(new JfrTopFrames.Summary(400, 100, List.of("java.util.HashMap.getNode", "sun.nio.ch.IOUtil.write"),
                    List.of(40L, 10L), List.of("dev.ratelimit.internal.support.RedisKeys.digest"), List.of(30L)));
        }
        HttpBench.Report report = new HttpBench.Report(ZonedDateTime.of(2026, 11, 28, 13, 0, 0, 0, ZoneOffset.UTC),
                BenchmarkReport.HTTP_COMMAND, "wrk", Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(5),
                3, "7.0.15", "all", rows, Map.of(), Duration.ofMinutes(10), new double[] {1, 2}, profiles);

        String page = new HttpProfilePage(report).write();

        assertThat(page).startsWith("# Where the server's CPU goes, per HTTP row\n").contains("## 10,000 clients",
                "## 100 clients", "### `gcra`\n\n400 samples, 25 % the limiter's.",
                "| 10.0 % | `java.util.HashMap.getNode` | | 7.5 % | `dev.ratelimit.internal.support.RedisKeys.digest` |",
                "| 2.5 % | `sun.nio.ch.IOUtil.write` | |  |  |", "### no filter\n\n200 samples, 0 % the limiter's.");
    }
}
