package dev.ratelimit.internal.scripts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.rules.CalendarBounds;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Calendar quotas at exact instants: the production script with the period starts that
 * {@link CalendarBounds} computes from a JVM clock, and Redis' clock frozen through the trailing
 * {@code now}. Month and day boundaries in UTC and Europe/Berlin, across both daylight-saving changes.
 *
 * <p>Replies are {all_allowed, allowed, remaining, retry_after_us, reset_after_us}.
 */
class CalendarClockIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    /** One calendar rule of `limit`, its period starts computed by a JVM whose clock reads `jvmNow`. */
    private record Quota(CalendarPeriod period, ZoneId zone, long limit, String key) {
        List<Long> consume(Instant redisNow) {
            return run(true, 1, redisNow, redisNow);
        }

        List<Long> run(boolean consume, long permits, Instant redisNow, Instant jvmNow) {
            String starts = new CalendarBounds(period, zone, jvmNow::toEpochMilli).text();
            List<String> args = List.of(consume ? "1" : "0", Long.toString(permits), Long.toString(limit), starts,
                    Long.toString(micros(redisNow)));
            LuaScript script = ScriptCalls.CALENDAR;
            @SuppressWarnings("unchecked")
            List<Long> reply = (List<Long>) redis.client().eval(script.source(), List.of(key), args);
            // An admission's receipt (the period, for refund.lua) follows; RefundClockIT checks it.
            return reply.subList(0, Math.min(reply.size(), 5));
        }
    }

    private static long micros(Instant at) {
        return TimeUnit.SECONDS.toMicros(at.getEpochSecond()) + at.getNano() / 1000;
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }

    private static Instant at(String local, ZoneId zone) {
        return ZonedDateTime.parse(local + "[" + zone.getId() + "]").toInstant();
    }

    /** Uses up the quota at `now` and returns the denial's retry-after. */
    private static Duration retryAfterUsingUp(Quota quota, Instant now) {
        for (int i = 0; i < quota.limit(); i++) {
            assertThat(quota.consume(now).get(0)).as("admission %d", i + 1).isEqualTo(1L);
        }
        List<Long> denied = quota.consume(now);
        assertThat(denied.get(0)).as("over the quota").isZero();
        assertThat(denied.get(4)).as("reset: the same instant").isEqualTo(denied.get(3));
        return Duration.ofNanos(denied.get(3) * 1000);
    }

    @Test
    void aUtcDayEndsAtMidnightToTheMicrosecond() {
        Quota quota = new Quota(CalendarPeriod.DAY, UTC, 2, redis.key("utc-day"));
        // Used up a minute before midnight: the key's TTL runs on Redis' real clock, so it must
        // outlive this test's calls, which a microsecond before midnight it would not.
        assertThat(retryAfterUsingUp(quota, at("2026-03-10T23:59:00+00:00", UTC))).isEqualTo(Duration.ofMinutes(1));
        Instant late = at("2026-03-10T23:59:59.999999+00:00", UTC);
        List<Long> lastMicrosecond = quota.run(false, 1, late, late);
        assertThat(lastMicrosecond.get(0)).as("still the same day").isZero();
        assertThat(lastMicrosecond.get(3)).as("retry-after: one microsecond").isEqualTo(1L);

        assertThat(quota.consume(at("2026-03-11T00:00:00+00:00", UTC)).subList(0, 3))
                .as("a new day: full quota").containsExactly(1L, 1L, 1L);
    }

    @Test
    void theBerlinDayOfTheSpringChangeHas23Hours() {
        Quota quota = new Quota(CalendarPeriod.DAY, BERLIN, 1, redis.key("berlin-spring"));
        Instant midnight = at("2026-03-29T00:00:00+01:00", BERLIN);
        assertThat(retryAfterUsingUp(quota, midnight)).isEqualTo(Duration.ofHours(23));
        assertThat(redis.client().pttl(quota.key())).as("the counter lives to the end of its day")
                .isBetween(Duration.ofHours(23).toMillis() - 60_000, Duration.ofHours(23).toMillis());
        assertThat(quota.consume(at("2026-03-29T23:59:59+02:00", BERLIN)).get(0)).isZero();
        assertThat(quota.consume(at("2026-03-30T00:00:00+02:00", BERLIN)).get(0)).isEqualTo(1L);
    }

    @Test
    void theBerlinDayOfTheAutumnChangeHas25Hours() {
        Quota quota = new Quota(CalendarPeriod.DAY, BERLIN, 1, redis.key("berlin-autumn"));
        Instant midnight = at("2026-10-25T00:00:00+02:00", BERLIN);
        assertThat(retryAfterUsingUp(quota, midnight)).isEqualTo(Duration.ofHours(25));
        Instant secondTwoOClock = at("2026-10-25T02:30:00+01:00", BERLIN);
        assertThat(quota.consume(secondTwoOClock).get(3)).as("the hour that happens twice is one day")
                .isEqualTo(micros(Duration.ofHours(21).plusMinutes(30)));
    }

    @Test
    void monthsOf28And31DaysInUtcAndBerlin() {
        Quota february = new Quota(CalendarPeriod.MONTH, UTC, 1, redis.key("utc-february"));
        assertThat(retryAfterUsingUp(february, at("2026-02-01T00:00:00+00:00", UTC))).isEqualTo(Duration.ofDays(28));

        Quota march = new Quota(CalendarPeriod.MONTH, BERLIN, 1, redis.key("berlin-march"));
        assertThat(retryAfterUsingUp(march, at("2026-03-01T00:00:00+01:00", BERLIN)))
                .as("31 days less the hour the clocks skip").isEqualTo(Duration.ofDays(31).minusHours(1));
        assertThat(march.consume(at("2026-03-31T23:59:59.999999+02:00", BERLIN)).get(0)).isZero();
        assertThat(march.consume(at("2026-04-01T00:00:00+02:00", BERLIN)).get(0)).as("April").isEqualTo(1L);
    }

    @Test
    void anIsoWeekStartsOnMonday() {
        Quota quota = new Quota(CalendarPeriod.WEEK, BERLIN, 1, redis.key("week"));
        // Thursday 2026-11-19, noon: the week ends at Monday 2026-11-23, midnight.
        assertThat(retryAfterUsingUp(quota, at("2026-11-19T12:00:00+01:00", BERLIN)))
                .isEqualTo(Duration.ofDays(3).plusHours(12));
    }

    @Test
    void aJvmClockOffByLessThanAPeriodStillCountsInRedisPeriod() {
        Quota quota = new Quota(CalendarPeriod.DAY, UTC, 1, redis.key("skew"));
        Instant redisNow = at("2026-05-05T00:10:00+00:00", UTC);
        Instant jvmBehind = redisNow.minus(Duration.ofMinutes(20));
        assertThat(quota.run(true, 1, redisNow, jvmBehind).get(0)).isEqualTo(1L);
        List<Long> denied = quota.run(true, 1, redisNow, redisNow.plus(Duration.ofHours(5)));
        assertThat(denied.get(0)).as("another JVM, ahead, sees the same day's count").isZero();
        assertThat(denied.get(3)).isEqualTo(micros(Duration.ofHours(23).plusMinutes(50)));

        Instant farBehind = redisNow.minus(Duration.ofDays(3));
        assertThatThrownBy(() -> quota.run(true, 1, redisNow, farBehind)).isInstanceOf(JedisDataException.class)
                .hasMessageContaining("the application server clock is off by more than a period");
    }

    @Test
    void theLastPeriodsCountIsNoCountInTheNext() {
        Quota quota = new Quota(CalendarPeriod.DAY, UTC, 3, redis.key("stale"));
        Instant monday = at("2026-06-01T10:00:00+00:00", UTC);
        quota.consume(monday);
        quota.consume(monday);
        // As if the key had outlived its day (a replica promoted with the key still there).
        redis.client().persist(quota.key());
        List<Long> tuesday = quota.run(false, 1, at("2026-06-02T10:00:00+00:00", UTC),
                at("2026-06-02T10:00:00+00:00", UTC));
        assertThat(tuesday.subList(0, 3)).as("peek: the full quota").containsExactly(1L, 1L, 3L);
    }

    @Test
    void boundsAreRecomputedWhenTheJvmClockLeavesThePeriod() {
        long[] clock = {at("2026-12-31T23:59:59+01:00", BERLIN).toEpochMilli()};
        CalendarBounds bounds = new CalendarBounds(CalendarPeriod.DAY, BERLIN, () -> clock[0]);
        String lastDay = bounds.text();
        assertThat(bounds.text()).isSameAs(lastDay);
        clock[0] += 1000;
        List<Long> starts = new ArrayList<>();
        for (String start : bounds.text().split(",")) {
            starts.add(Long.parseLong(start));
        }
        assertThat(starts.get(1)).as("new year's day, midnight in Berlin")
                .isEqualTo(micros(at("2027-01-01T00:00:00+01:00", BERLIN)));
        assertThat(starts).isSorted();
    }
}
