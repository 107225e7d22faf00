package dev.ratelimit;

import dev.ratelimit.internal.engine.RulesInForce;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the algorithm admits from one place, computed in Java from the admissions the model saw (by
 * every node, from Redis and from leases), for {@link LeasesModel}. Each client's admissions are
 * split by epoch (a reset starts one) and checked as they come:
 * <ul>
 *   <li>fixed-window: a window opens with the first admission when none is open and lasts the rule's
 *       TTL in Redis' milliseconds (gone once the clock is past its last millisecond); the permits
 *       admitted in it are at most the limit;</li>
 *   <li>sliding-log: the permits admitted in the window-long span (t - window, t] ending at each
 *       admission are at most the limit;</li>
 *   <li>token-bucket: the admissions, replayed in order through the script's integer bucket
 *       (capacity, scale, refill per microsecond), each find their tokens;</li>
 *   <li>gcra: replayed through GCRA, each admission's TAT is within the burst: for every span of
 *       admissions, permits x interval is at most burst x interval + the span's length.</li>
 * </ul>
 * The limit is the largest any node applied during the span the bound looks at (a node that has not
 * read an override yet decides, and admits from its leases, at the limit it has): the window for
 * fixed-window, two windows back for sliding-log (a lease's entry may have been counted that far back),
 * the admission's instant for gcra. Limits dividing the window into whole microseconds keep gcra's
 * tolerance (burst x interval) the same at every limit, so the replay at the largest is the most
 * lenient one. Token-bucket takes no overrides.
 */
final class AdmissionBounds {
    /** One admission as Redis counted it, or as a node admitted it from a lease. */
    record Admission(int client, int epoch, long nanos, long permits, boolean fromLease, int node) {
        long micros() {
            return Math.floorDiv(nanos, 1000);
        }

        @Override
        public String toString() {
            return permits + "@" + micros() % 100_000_000 + "us" + (fromLease ? " lease" : "") + " n" + node;
        }
    }

    /** Each instant some node's limit may have been in force: the largest limit the nodes applied then. */
    static final class LimitTimeline {
        private final List<long[]> points = new ArrayList<>();

        void record(long nanos, long maxLimit) {
            if (!points.isEmpty() && points.get(points.size() - 1)[1] == maxLimit) {
                return;
            }
            points.add(new long[] {nanos, maxLimit});
        }

        /** The largest limit in force at any instant of [from, to]: the points in it, and the last one before. */
        long max(long from, long to) {
            long max = 0;
            for (int i = points.size() - 1; i >= 0; i--) {
                long[] point = points.get(i);
                if (point[0] > to) {
                    continue;
                }
                max = Math.max(max, point[1]);
                if (point[0] < from) {
                    break;
                }
            }
            return max;
        }
    }

    private final Rule configured;
    private final long windowMicros;
    private final LimitTimeline limits;
    private final Map<String, State> states = new HashMap<>();

    AdmissionBounds(Rule configured, LimitTimeline limits) {
        this.configured = configured;
        this.windowMicros = configured.windowMicros();
        this.limits = limits;
    }

    /** One client's admissions in one epoch, as its algorithm counts them. */
    private static final class State {
        final Deque<Admission> recent = new ArrayDeque<>();
        long windowOpenMillis = Long.MIN_VALUE;
        long windowOpenNanos;
        long inWindow;
        long tokens = -1;
        long countedAt;
        long tat = Long.MIN_VALUE;
    }

    /**
     * Adds an admission and checks it.
     *
     * @return null when within the bound, else what was exceeded (with the admissions that did it)
     */
    String admit(Admission admission) {
        State state = states.computeIfAbsent(admission.client() + "#" + admission.epoch(), k -> new State());
        state.recent.addLast(admission);
        long t = admission.micros();
        String over = switch (configured.algorithm()) {
            case FIXED_WINDOW -> fixedWindow(state, admission);
            case SLIDING_LOG -> slidingLog(state, admission, t);
            case TOKEN_BUCKET -> tokenBucket(state, admission, t);
            case GCRA -> gcra(state, admission, t);
            default -> throw new IllegalArgumentException("leases do not serve " + configured.algorithm());
        };
        // Kept for two windows (sliding-log counts them) and for the message: at least the last 30.
        while (state.recent.size() > 30 && state.recent.peekFirst().micros() <= t - 2 * windowMicros) {
            state.recent.removeFirst();
        }
        List<Admission> last = new ArrayList<>(state.recent);
        return over == null ? null : over + "; client c" + admission.client() + " epoch " + admission.epoch()
                + ", its last admissions (permits@microseconds): " + last.subList(Math.max(0, last.size() - 30), last.size());
    }

    /**
     * What one place holds now for the client's admissions in an epoch, in the unit Redis is compared
     * in by {@link LeasesModel}: fixed-window and sliding-log the permits counted now (Redis must count
     * at least these), token-bucket the tokens left now (Redis must hold at most these), gcra the TAT,
     * at least now (Redis' must be at least this). Leases only ever make Redis stricter (they are
     * counted before they are used, and as if used at their end), never laxer.
     */
    long oneplaceNow(int client, int epoch, long nowNanos) {
        State state = states.get(client + "#" + epoch);
        long now = Math.floorDiv(nowNanos, 1000);
        switch (configured.algorithm()) {
            case FIXED_WINDOW -> {
                long ttlMillis = (windowMicros + 999) / 1000;
                boolean open = state != null && state.windowOpenMillis != Long.MIN_VALUE
                        && Math.floorDiv(nowNanos, 1_000_000L) <= state.windowOpenMillis + ttlMillis;
                return open ? state.inWindow : 0;
            }
            case SLIDING_LOG -> {
                long inWindow = 0;
                for (Admission each : state == null ? List.<Admission>of() : state.recent) {
                    inWindow += each.micros() > now - windowMicros ? each.permits() : 0;
                }
                return inWindow;
            }
            case TOKEN_BUCKET -> {
                List<String> args = configured.algorithm().scriptArguments(configured);
                return tokensAt(state == null ? -1 : state.tokens, state == null ? 0 : state.countedAt, now,
                        Long.parseLong(args.get(0)), Long.parseLong(args.get(2)));
            }
            default -> {
                return state == null ? now : Math.max(state.tat, now);
            }
        }
    }

    /** A token bucket's tokens at {@code now}, as token-bucket.lua computes them (-1 counted: a full bucket). */
    static long tokensAt(long counted, long at, long now, long capacity, long refill) {
        if (counted < 0) {
            return capacity;
        }
        long elapsed = Math.max(0, now - at);
        return elapsed >= (capacity - counted + refill - 1) / refill ? capacity : counted + elapsed * refill;
    }

    private String fixedWindow(State state, Admission admission) {
        long ttlMillis = (windowMicros + 999) / 1000;
        long millis = Math.floorDiv(admission.nanos(), 1_000_000L);
        if (state.windowOpenMillis == Long.MIN_VALUE || millis > state.windowOpenMillis + ttlMillis) {
            state.windowOpenMillis = millis;
            state.windowOpenNanos = admission.nanos();
            state.inWindow = 0;
        }
        state.inWindow += admission.permits();
        long limit = limits.max(state.windowOpenNanos, admission.nanos());
        return state.inWindow <= limit ? null : "fixed-window: " + state.inWindow + " permits admitted in the window "
                + "opened at " + state.windowOpenMillis % 100_000 + " ms (of 100 s), over the largest limit in force " + limit;
    }

    private String slidingLog(State state, Admission admission, long t) {
        long inWindow = 0;
        for (Admission each : state.recent) {
            if (each.micros() > t - windowMicros) {
                inWindow += each.permits();
            }
        }
        long limit = limits.max(admission.nanos() - 2_000 * windowMicros, admission.nanos());
        return inWindow <= limit ? null : "sliding-log: " + inWindow + " permits admitted in (t - window, t] at t = "
                + t % 100_000_000 + " us, over the largest limit in force " + limit;
    }

    private String tokenBucket(State state, Admission admission, long t) {
        List<String> args = configured.algorithm().scriptArguments(configured);
        long capacity = Long.parseLong(args.get(0));
        long scale = Long.parseLong(args.get(1));
        long refill = Long.parseLong(args.get(2));
        long tokens = tokensAt(state.tokens, state.countedAt, t, capacity, refill);
        long need = admission.permits() * scale;
        if (tokens < need) {
            return "token-bucket: the admission needs " + need + " units, the one-place bucket holds " + tokens
                    + " (capacity " + capacity + ", scale " + scale + ", refill " + refill + "/us)";
        }
        state.tokens = tokens - need;
        state.countedAt = t;
        return null;
    }

    private String gcra(State state, Admission admission, long t) {
        long limit = limits.max(admission.nanos(), admission.nanos());
        Rule rule = limit == configured.limit() ? configured : RulesInForce.atLimit(List.of(configured), limit).get(0);
        List<String> args = rule.algorithm().scriptArguments(rule);
        long interval = Long.parseLong(args.get(0));
        long tolerance = Long.parseLong(args.get(1)) * interval;
        long tat = Math.max(state.tat, t) + admission.permits() * interval;
        state.tat = tat;
        return tat - t <= tolerance ? null : "gcra: the TAT would be " + (tat - t) + " us ahead of now, past the "
                + "tolerance " + tolerance + " us (limit " + limit + ", interval " + interval + " us)";
    }
}
