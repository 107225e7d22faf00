package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Calendar rules through a limiter, on Redis' own clock (the exact instants are in CalendarClockIT). */
class CalendarQuotaIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ZoneId UTC = ZoneId.of("UTC");

    @Test
    void aDailyQuotaDeniesUntilMidnightInItsTimeZone() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("daily")
                    .localDenyCache(false).rule(Rule.calendar(2, CalendarPeriod.DAY, UTC).build()).build();

            assertThat(limiter.tryAcquire("c").remaining()).isEqualTo(1);
            assertThat(limiter.tryAcquire("c").remaining()).isZero();
            Decision denied = limiter.tryAcquire("c");

            ZonedDateTime now = ZonedDateTime.now(UTC);
            Duration untilMidnight = Duration.between(now, CalendarPeriod.DAY.next(CalendarPeriod.DAY.start(now)));
            assertThat(denied.allowed()).isFalse();
            assertThat(denied.degraded()).isFalse();
            assertThat(denied.limit()).isEqualTo(2);
            assertThat(denied.retryAfter()).as("Redis' midnight, within a minute of this clock's")
                    .isBetween(untilMidnight.minusMinutes(1), untilMidnight.plusMinutes(1));
            assertThat(denied.resetAfter()).isEqualTo(denied.retryAfter());
            assertThat(limiter.rules().get(0).name()).isEqualTo("2/day");
            assertThat(limiter.rules().get(0)).hasToString("2/day: 2 per calendar day in UTC");
        }
    }

    @Test
    void aMonthlyQuotaScalesWithAdaptiveLimitsAndKeepsItsCalendar() {
        AdaptiveLimit adaptive = AdaptiveLimit.floor(0.5).loadSource(() -> 0.99);
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("monthly")
                    .localDenyCache(false).adaptive(adaptive)
                    .rule(Rule.calendar(10, CalendarPeriod.MONTH, ZoneId.of("Europe/Berlin")).build()).build();
            int admitted = 0;
            for (int i = 0; i < 10; i++) {
                admitted += limiter.tryAcquire("c").allowed() ? 1 : 0;
            }
            assertThat(admitted).isEqualTo(5);
            assertThat(limiter.effectiveRules().get(0).calendar()).isEqualTo(CalendarPeriod.MONTH);
        }
    }

    @Test
    void calendarRulesAreCheckedWhereTheyAreBuilt() {
        assertThatThrownBy(() -> Rule.calendar(5, CalendarPeriod.DAY, null).build())
                .hasMessage("timeZone must be a time zone such as UTC or Europe/Berlin for calendar day, but was null");
        assertThatThrownBy(() -> Rule.calendar(0, CalendarPeriod.WEEK, UTC).build())
                .hasMessage("limit must be positive, but was 0");
        assertThatThrownBy(() -> CalendarPeriod.fromConfigName("year"))
                .hasMessage("calendar must be one of day, week, month, but was 'year'");
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            assertThatThrownBy(() -> RateLimiter.builder(store).rule(Rule.calendar(5, CalendarPeriod.DAY, UTC).build())
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(1))).build())
                    .hasMessageStartingWith("rules of one limiter must share one algorithm, and be all calendar rules");
            assertThatThrownBy(() -> RateLimiter.builder(store).transport(Transport.TRANSACTION)
                    .rule(Rule.calendar(5, CalendarPeriod.DAY, UTC).build()).build())
                    .hasMessageStartingWith("transport 'transaction' counts fixed windows only");
        }
    }
}
