package dev.ratelimit;

import dev.ratelimit.internal.support.Arguments;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;

/**
 * One limit: at most {@code limit} permits per {@code window}, counted by an {@link Algorithm}.
 *
 * <p>Immutable; every value is checked once, in {@link Builder#build()}, so a rule that exists is
 * valid. For {@code token-bucket}, {@code leaky-bucket} and {@code gcra}, {@code burst} is the
 * bucket's capacity (default: {@code limit}) and {@code limit}/{@code window} its steady rate.
 * For the window algorithms the capacity is the limit itself and {@code burst} may not be set.
 *
 * <pre>{@code
 * Rule perSecond = Rule.of(Algorithm.SLIDING_LOG, 10, Duration.ofSeconds(1));
 * Rule bursty = Rule.builder(Algorithm.TOKEN_BUCKET, 100, Duration.ofMinutes(1)).burst(20).build();
 * Rule daily = Rule.calendar(1000, CalendarPeriod.DAY, ZoneId.of("Europe/Berlin")).build();
 * }</pre>
 *
 * <p>A calendar rule counts like {@code fixed-window}, per calendar period in a time zone instead of
 * per window: its {@link #window()} is the period's longest length.
 */
public final class Rule {
    /** The longest window a rule may have; longer state would outlive any sensible deployment. */
    public static final Duration MAX_WINDOW = Arguments.MAX_WINDOW;
    /** The shortest window: key TTLs are kept in milliseconds. */
    public static final Duration MIN_WINDOW = Arguments.MIN_WINDOW;
    /** The longest rule name, so that Redis keys stay bounded. */
    public static final int MAX_NAME_LENGTH = 64;

    /** The largest {@code limit} and {@code burst}: counts up to it, plus permits, stay exact in Lua with room. */
    public static final long MAX_LIMIT = 1L << 50;
    /** The longest penalty: see {@link Builder#penalty}. */
    public static final Duration MAX_PENALTY = Arguments.MAX_PENALTY;

    private final String name;
    private final Algorithm algorithm;
    private final long limit;
    private final Duration window;
    private final long burst;
    private final long cost;
    private final CalendarPeriod calendar;
    private final ZoneId timeZone;
    /** Null when off. */
    private final Duration penalty;

    private Rule(Builder builder, long burst) {
        this.algorithm = builder.algorithm;
        this.limit = builder.limit;
        this.window = builder.window;
        this.burst = burst;
        this.cost = builder.cost;
        this.calendar = builder.calendar;
        this.timeZone = builder.timeZone;
        this.penalty = builder.penalty;
        this.name = builder.name != null ? builder.name
                : limit + "/" + (calendar != null ? calendar.configName() : Durations.format(window));
    }

    /**
     * A rule with default burst, cost and name.
     *
     * @throws IllegalArgumentException as {@link Builder#build()}
     */
    public static Rule of(Algorithm algorithm, long limit, Duration window) {
        return builder(algorithm, limit, window).build();
    }

    /** Starts a rule; nothing is checked until {@link Builder#build()}. */
    public static Builder builder(Algorithm algorithm, long limit, Duration window) {
        return new Builder(algorithm, limit, window);
    }

    /**
     * Starts a calendar rule: at most {@code limit} permits per day, week or month in the time zone,
     * counted like {@code fixed-window}; nothing is checked until {@link Builder#build()}.
     */
    public static Builder calendar(long limit, CalendarPeriod period, ZoneId timeZone) {
        Builder builder = new Builder(Algorithm.FIXED_WINDOW, limit, period == null ? null : period.longest());
        builder.calendar = period;
        builder.timeZone = timeZone;
        return builder;
    }

    /** The rule's name: given, or {@code <limit>/<window>} such as {@code 10/1s}. */
    public String name() {
        return name;
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    /** Permits per window (for the buckets: the refill or leak rate per window). */
    public long limit() {
        return limit;
    }

    public Duration window() {
        return window;
    }

    /** Bucket capacity for the bucket algorithms; equal to {@link #limit()} for the others. */
    public long burst() {
        return burst;
    }

    /** Permits a request takes when the caller does not say. */
    public long cost() {
        return cost;
    }

    /** The most permits this rule can ever grant at once: {@code burst} or {@code limit}. */
    public long capacity() {
        return algorithm.usesBurst() ? burst : limit;
    }

    /** The calendar period a calendar rule counts in, or null for a rule of a fixed window. */
    public CalendarPeriod calendar() {
        return calendar;
    }

    /** The time zone of a calendar rule's periods, or null. */
    public ZoneId timeZone() {
        return timeZone;
    }

    /**
     * How long a client that goes over the limit is then shut out on every node (the penalty box),
     * or null when it is not: the denial that finds it over the limit starts the penalty.
     */
    public Duration penalty() {
        return penalty;
    }

    /** The window in microseconds, the unit the scripts count time in. */
    public long windowMicros() {
        return window.toNanos() / 1000;
    }

    /** Every value: what makes two rules equal. */
    private List<Object> values() {
        return Arrays.asList(name, algorithm, limit, window, burst, cost, calendar, timeZone, penalty);
    }

    @Override
    public boolean equals(Object other) {
        return other == this || other instanceof Rule && values().equals(((Rule) other).values());
    }

    @Override
    public int hashCode() {
        return values().hashCode();
    }

    @Override
    public String toString() {
        return name + ": " + (calendar != null ? limit + " per calendar " + calendar + " in " + timeZone.getId()
                : algorithm == Algorithm.CONCURRENCY ? algorithm + " " + limit + " in flight (lease timeout " + Durations.format(window) + ")"
                : algorithm + " " + limit + " per " + Durations.format(window))
                + (algorithm.usesBurst() ? ", burst " + burst : "") + (cost != 1 ? ", cost " + cost : "")
                + (penalty != null ? ", penalty " + Durations.format(penalty) : "");
    }

    /** Collects a rule's values; {@link #build()} validates them all at once. */
    public static final class Builder {
        private final Algorithm algorithm;
        private final long limit;
        private final Duration window;
        private Long burst;
        private long cost = 1;
        private String name;
        private CalendarPeriod calendar;
        private ZoneId timeZone;
        private Duration penalty;

        private Builder(Algorithm algorithm, long limit, Duration window) {
            this.algorithm = algorithm;
            this.limit = limit;
            this.window = window;
        }

        /** Bucket capacity; only for {@code token-bucket}, {@code leaky-bucket} and {@code gcra}. */
        public Builder burst(long burst) {
            this.burst = burst;
            return this;
        }

        /** Permits one request takes by default; 1 unless set. */
        public Builder cost(long cost) {
            this.cost = cost;
            return this;
        }

        /**
         * Shuts a client that goes over the limit out for this long, on every node; null (the default) for no penalty.
         * Whole milliseconds from 1 ms to {@link #MAX_PENALTY}; not for {@code concurrency} or calendar rules.
         */
        public Builder penalty(Duration penalty) {
            this.penalty = penalty;
            return this;
        }

        /**
         * A name for logs, decisions and (when a limiter has several rules) Redis keys: printable
         * ASCII without blanks or braces, at most {@value #MAX_NAME_LENGTH} characters.
         */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** @throws IllegalArgumentException naming the first bad argument and its value */
        public Rule build() {
            if (algorithm == null) {
                throw new BadArgument("algorithm", "algorithm must be one of " + Algorithm.names() + ", but was null");
            }
            if (limit <= 0) {
                throw new BadArgument("limit", "limit must be positive, but was " + limit);
            }
            if (limit > MAX_LIMIT) {
                throw new BadArgument("limit", "limit must be at most " + MAX_LIMIT + " (larger counts are not exact "
                        + "as Lua numbers), but was " + limit);
            }
            if (calendar == null && timeZone != null) {
                throw new BadArgument("calendar", "calendar must be day, week or month with a time zone, but was null");
            }
            if (calendar != null && timeZone == null) {
                throw new BadArgument("timeZone", "timeZone must be a time zone such as UTC or Europe/Berlin for "
                        + "calendar " + calendar + ", but was null");
            }
            Arguments.checkWindow(window);
            if (burst != null && !algorithm.usesBurst()) {
                throw new BadArgument("burst", "burst applies only to " + Algorithm.namesWhere(Algorithm::usesBurst)
                        + ", but was " + burst + " for algorithm " + algorithm);
            }
            if (burst != null && burst < 1) {
                throw new BadArgument("burst", "burst must be at least 1, but was " + burst);
            }
            if (burst != null && burst > MAX_LIMIT) {
                throw new BadArgument("burst", "burst must be at most " + MAX_LIMIT + " (larger counts are not exact "
                        + "as Lua numbers), but was " + burst);
            }
            long effectiveBurst = burst != null ? burst : limit;
            long capacity = algorithm.usesBurst() ? effectiveBurst : limit;
            if (cost < 1 || cost > capacity) {
                throw new BadArgument("cost", "cost must be between 1 and the rule's capacity " + capacity
                        + ", but was " + cost);
            }
            if (cost != 1 && algorithm.holdsLeases()) {
                throw new BadArgument("cost", "cost must be 1 for algorithm " + algorithm + " (a request holds one "
                        + "lease while it is served), but was " + cost);
            }
            if (name != null) {
                RedisKeys.checkKeyPart("name", name, 1, MAX_NAME_LENGTH);
            }
            if (penalty != null) {
                checkPenalty();
            }
            algorithm.checkExact(limit, window, effectiveBurst);
            return new Rule(this, effectiveBurst);
        }

        /**
         * A penalty is whole milliseconds (the box expires by PX) within bounds. Refused for {@code concurrency}, whose
         * denial means "too many in flight now", not a client over a rate, and whose script reads its lease id where
         * the penalty box would go; and for calendar rules, which no test covers yet.
         */
        private void checkPenalty() {
            Arguments.checkWholeMillis("penalty", penalty, MAX_PENALTY);
            if (algorithm.holdsLeases() || calendar != null) {
                throw BadArgument.predicate("penalty", "(" + Durations.format(penalty) + ") cannot be combined with "
                        + (calendar != null ? "calendar " + calendar.configName() + ": calendar rules have no penalty box yet"
                        : "algorithm " + algorithm + ": its denial means too many requests in flight, which end on "
                        + "their own, not a client over its rate"));
            }
        }
    }
}
