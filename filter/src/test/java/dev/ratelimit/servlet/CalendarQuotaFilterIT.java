package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.DeploymentFailedException;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * README's calendar quota, deployed as written (only the Redis address is this test's): a daily
 * quota in Europe/Berlin on Redis' own clock; the exact boundaries are CalendarClockIT's.
 */
class CalendarQuotaFilterIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();

    @AfterAll
    static void stop() {
        containers.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aDailyQuotaInBerlinDeniesUntilBerlinMidnight(Kind kind) throws Exception {
        Map<String, String> params = ReadmeSnippets.initParams("web.xml calendar quota");
        assertThat(params).containsEntry("calendar", "day").containsEntry("timeZone", "Europe/Berlin");
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", redis.keyPrefix() + kind + ":");
        URI app = containers.get(kind).deploy(AppDescriptor.builder("/calendar-" + kind)
                .filter("reports", RateLimitFilter.class.getName(), params, "/*").build());

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> admitted = Http.get(app, "X-Api-Key", "key-1");
            assertThat(admitted.statusCode()).isEqualTo(200);
            assertThat(admitted.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=3;w=86400");
        }
        HttpResponse<String> denied = Http.get(app, "X-Api-Key", "key-1");

        ZonedDateTime now = ZonedDateTime.now(ZoneId.of("Europe/Berlin"));
        long untilMidnight = Duration.between(now, CalendarPeriod.DAY.next(CalendarPeriod.DAY.start(now))).getSeconds();
        assertThat(denied.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(denied.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).as("Berlin's next midnight by Redis' clock").isBetween(untilMidnight - 60,
                untilMidnight + 60);
        assertThat(denied.headers().firstValue("RateLimit")).hasValue("\"reports\";r=0;t=" + retryAfter);
        assertThat(denied.body()).contains("allows 3 requests per calendar day (Europe/Berlin)");
        assertThat(Http.get(app, "X-Api-Key", "key-2").statusCode()).as("another key's quota").isEqualTo(200);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void calendarSettingsAreChecked(Kind kind) {
        assertRefused(kind, Map.of("calendar", "day", "window", "1d"),
                "init-param 'window' and init-param 'calendar' exclude each other, but both were set: '1d' and 'day'");
        assertRefused(kind, Map.of("calendar", "day", "timeZone", "Mars/Olympus"),
                "init-param 'timeZone' must be a time zone such as UTC or Europe/Berlin, but was 'Mars/Olympus'");
        assertRefused(kind, Map.of("calendar", "year"),
                "init-param 'calendar' must be one of day, week, month, but was 'year'");
        assertRefused(kind, Map.of("window", "1m", "timeZone", "UTC"),
                "init-param 'timeZone' applies only with calendar");
        assertRefused(kind, Map.of("calendar", "week", "algorithm", "gcra"),
                "init-param 'calendar' counts as fixed-window, but init-param 'algorithm' is 'gcra'");
    }

    private static void assertRefused(Kind kind, Map<String, String> settings, String message) {
        Map<String, String> params = new LinkedHashMap<>(settings);
        params.put("limit", "3");
        params.put("redisUri", redis.uri());
        assertThatThrownBy(() -> containers.get(kind).deploy(AppDescriptor.builder("/refused-" + kind + refusals++)
                .filter("reports", RateLimitFilter.class.getName(), params, "/*").build()))
                .isInstanceOf(DeploymentFailedException.class).hasMessageContaining(message);
    }

    private static int refusals;
}
