package dev.ratelimit;

import dev.ratelimit.EffectiveHistory.Event;
import dev.ratelimit.EffectiveHistory.Kind;
import dev.ratelimit.internal.engine.RulesInForce;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each algorithm admits from one place, for {@link GiveBacksModel}: a client's effective history
 * in its epoch ({@link EffectiveHistory}), in order of the instants its events take effect, replayed
 * as the algorithm counts, in the script's own integer arithmetic (sliding-window's weighted estimate
 * in doubles, as Lua computes it). Each admission, delayed ones at their turn, must find its room;
 * after-charges push the state but are not themselves checked (they are taken past the limit). The
 * replay also gives one place's state now, which Redis' must be no laxer than.
 * <ul>
 *   <li>fixed-window: a window opens with the first event when none is open and lasts until Redis
 *       drops its key (the millisecond after its TTL), or until the instant a request delayed into
 *       the next window was booked for, where that key switches windows (fixed-window.lua's
 *       {@code r<count>:<next>:<switch>}); at most the limit per window;</li>
 *   <li>sliding-log: at most the limit in the window-long span (t - window, t] ending at each admission;</li>
 *   <li>sliding-window: the estimate over windows aligned to the epoch, previous x (window - elapsed) /
 *       window + current, within the limit;</li>
 *   <li>token-bucket, leaky-bucket: the bucket's tokens (level) replayed, each admission finding its
 *       tokens (room);</li>
 *   <li>gcra: each admission's TAT within the tolerance (burst x interval) of its instant.</li>
 * </ul>
 * The limit is the largest in force over the span the bound looks at ({@link AdmissionBounds.LimitTimeline},
 * as in the leases model), from the instant the admission was decided: a delayed one was decided
 * before its turn, at the limit then.
 */
final class OnePlace {
    /**
     * A replay: the first admission one place would not make (null: none), one place's state now ({@code
     * value}, and {@code other}: sliding-window's previous count, token-bucket's counting instant), and how
     * many of the first events no longer matter (before a fresh state, and older than three windows).
     */
    record Replay(String violation, long value, long other, int forgettable) {
    }

    private final Rule rule;
    private final AdmissionBounds.LimitTimeline limits;
    private final long windowMicros;
    private final Map<Long, List<String>> argumentsAt = new HashMap<>();

    OnePlace(Rule rule, AdmissionBounds.LimitTimeline limits) {
        this.rule = rule;
        this.limits = limits;
        this.windowMicros = rule.windowMicros();
    }

    /** The script's arguments after permits at a limit (gcra's burst scales with it). */
    List<String> arguments(long limit) {
        return argumentsAt.computeIfAbsent(limit, l -> {
            Rule at = l == rule.limit() ? rule : RulesInForce.atLimit(List.of(rule), l).get(0);
            return at.algorithm().scriptArguments(at);
        });
    }

    private long limitFor(Event e, long lookBackNanos) {
        return limits.max(Math.min(e.decidedNanos, e.nanos) - lookBackNanos, e.nanos);
    }

    Replay replay(List<Event> events, long nowNanos) {
        long horizon = nowNanos - 3_000 * windowMicros;
        return switch (rule.algorithm()) {
            case FIXED_WINDOW -> fixedWindow(events, nowNanos, horizon);
            case SLIDING_LOG -> slidingLog(events, nowNanos, horizon);
            case SLIDING_WINDOW -> slidingWindow(events, nowNanos, horizon);
            case TOKEN_BUCKET -> tokenBucket(events, nowNanos, horizon);
            case LEAKY_BUCKET -> leakyBucket(events, nowNanos, horizon);
            case GCRA -> gcra(events, nowNanos, horizon);
            default -> throw new IllegalArgumentException("the give-back model does not hold " + rule.algorithm());
        };
    }

    /**
     * Whether a delayed admission that one place would not make is excused: it was booked before the
     * after-charges that come before its turn were taken (a charge is taken past the limit, whatever
     * was booked), and without them one place makes it.
     */
    private boolean excused(List<Event> events, int i, long now) {
        Event booked = events.get(i);
        if (booked.kind != Kind.DELAYED) {
            return false;
        }
        List<Event> known = new ArrayList<>();
        for (Event e : events.subList(0, i + 1)) {
            if (e.kind != Kind.CHARGE || e.seq < booked.seq) {
                known.add(e);
            }
        }
        return known.size() <= i && replay(known, now).violation() == null;
    }

    private static String over(Event e, String why) {
        return "one place would not admit " + e + ": " + why;
    }

    /**
     * Where a fixed window that Redis drops at {@code endNanos} ends: there, or at the turn of a
     * request delayed into the next window while it was open, booked within the millisecond after.
     */
    private static long windowEnd(List<Event> events, int from, long endNanos) {
        for (int i = from; i < events.size() && events.get(i).nanos < endNanos + 1_000_000; i++) {
            Event e = events.get(i);
            if (e.kind == Kind.DELAYED && e.nanos >= endNanos && e.decidedNanos < endNanos) {
                return e.nanos;
            }
        }
        return endNanos;
    }

    private Replay fixedWindow(List<Event> events, long now, long horizon) {
        long ttlMillis = (windowMicros + 999) / 1000;
        long openNanos = 0;
        long endNanos = Long.MIN_VALUE;
        long count = 0;
        long countNow = 0;
        int forget = 0;
        String violation = null;
        int i = 0;
        for (; i < events.size(); i++) {
            Event e = events.get(i);
            if (e.nanos >= windowEnd(events, i, endNanos)) {
                forget = e.nanos < horizon ? i : forget;
                openNanos = e.nanos;
                endNanos = (Math.floorDiv(e.nanos, 1_000_000L) + ttlMillis + 1) * 1_000_000L;
                count = 0;
            }
            count += e.permits;
            if (e.nanos <= now) {
                countNow = count;
            }
            long limit = limits.max(Math.min(openNanos, e.decidedNanos), e.nanos);
            if (violation == null && e.checked() && count > limit && !excused(events, i, now)) {
                violation = over(e, "fixed-window counts " + count + " permits in the window opened at "
                        + Math.floorDiv(openNanos, 1000) % 100_000_000 + "us, over the largest limit in force " + limit);
            }
        }
        int after = 0;
        while (after < events.size() && events.get(after).nanos <= now) {
            after++;
        }
        boolean open = after > 0 && now < windowEnd(events, after, lastEnd(events, after, ttlMillis));
        return new Replay(violation, open ? countNow : 0, 0, forget);
    }

    /** When Redis drops the window of the last event at or before now (its opening found again). */
    private static long lastEnd(List<Event> events, int after, long ttlMillis) {
        long end = Long.MIN_VALUE;
        for (int i = 0; i < after; i++) {
            if (events.get(i).nanos >= windowEnd(events, i, end)) {
                end = (Math.floorDiv(events.get(i).nanos, 1_000_000L) + ttlMillis + 1) * 1_000_000L;
            }
        }
        return end;
    }

    private Replay slidingLog(List<Event> events, long now, long horizon) {
        long sum = 0;
        int from = 0;
        int forget = 0;
        String violation = null;
        long inWindowNow = 0;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            sum += e.permits;
            while (events.get(from).micros() <= e.micros() - windowMicros) {
                sum -= events.get(from++).permits;
            }
            long limit = limitFor(e, 2_000 * windowMicros);
            if (violation == null && e.checked() && sum > limit && !excused(events, i, now)) {
                violation = over(e, "sliding-log counts " + sum + " permits in (t - window, t], over the largest limit "
                        + "in force " + limit);
            }
            forget = e.nanos < horizon ? i + 1 : forget;
            inWindowNow += e.micros() > Math.floorDiv(now, 1000) - windowMicros ? e.permits : 0;
        }
        return new Replay(violation, inWindowNow, 0, forget);
    }

    private Replay slidingWindow(List<Event> events, long now, long horizon) {
        Map<Long, Long> totals = new HashMap<>();
        for (Event e : events) {
            totals.merge(Math.floorDiv(e.micros(), windowMicros), e.permits, Long::sum);
        }
        long limit = rule.limit();
        Map<Long, Long> running = new HashMap<>();
        String violation = null;
        int forget = 0;
        long nowIndex = Math.floorDiv(Math.floorDiv(now, 1000), windowMicros);
        long currentNow = 0;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            long index = Math.floorDiv(e.micros(), windowMicros);
            long before = running.getOrDefault(index, 0L);
            running.put(index, before + e.permits);
            long previous = totals.getOrDefault(index - 1, 0L);
            long elapsed = e.micros() - index * windowMicros;
            // As sliding-window.lua computes it, in doubles.
            double estimate = previous * (double) (windowMicros - elapsed) / windowMicros + before;
            if (violation == null && e.checked() && estimate + e.permits > limit) {
                violation = over(e, "sliding-window estimates " + estimate + " before it (previous window " + previous
                        + ", this one " + before + "), over the limit " + limit);
            }
            forget = e.nanos < horizon ? i + 1 : forget;
            currentNow = index == nowIndex && e.nanos <= now ? before + e.permits : currentNow;
        }
        return new Replay(violation, currentNow, totals.getOrDefault(nowIndex - 1, 0L), forget);
    }

    /** A token bucket's tokens at {@code t} (micros), as token-bucket.lua refills them: up to full, from below zero too. */
    static long tokensAt(long tokens, long at, long t, long capacity, long refill) {
        long elapsed = Math.max(0, t - at);
        return elapsed >= ceilDiv(capacity - tokens, refill) ? capacity : tokens + elapsed * refill;
    }

    private Replay tokenBucket(List<Event> events, long now, long horizon) {
        List<String> args = arguments(rule.limit());
        long capacity = Long.parseLong(args.get(0));
        long scale = Long.parseLong(args.get(1));
        long refill = Long.parseLong(args.get(2));
        long tokens = capacity;
        long at = Long.MIN_VALUE / 4;
        String violation = null;
        int forget = 0;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            long t = e.micros();
            long before = tokensAt(tokens, at, t, capacity, refill);
            forget = before == capacity && e.nanos < horizon ? i : forget;
            long need = e.permits * scale;
            if (violation == null && e.checked() && before < need && !excused(events, i, now)) {
                violation = over(e, "token-bucket holds " + before + " units, it needs " + need + " (capacity " + capacity
                        + ", scale " + scale + ", refill " + refill + "/us)");
            }
            tokens = before - need;
            at = t;
        }
        return new Replay(violation, tokens, at, forget);
    }

    private Replay leakyBucket(List<Event> events, long now, long horizon) {
        List<String> args = arguments(rule.limit());
        long capacity = Long.parseLong(args.get(0));
        long scale = Long.parseLong(args.get(1));
        long leak = Long.parseLong(args.get(2));
        long level = 0;
        long at = 0;
        String violation = null;
        int forget = 0;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            long t = e.micros();
            level = levelAt(level, at, t, leak);
            forget = level == 0 && e.nanos < horizon ? i : forget;
            long pour = e.permits * scale;
            if (violation == null && e.checked() && level + pour > capacity) {
                violation = over(e, "leaky-bucket is at " + level + " units, pouring " + pour + " passes its capacity "
                        + capacity);
            }
            level += pour;
            at = t;
        }
        return new Replay(violation, levelAt(level, at, Math.floorDiv(now, 1000), leak), 0, forget);
    }

    /** {@code a / b} rounded up, for a positive {@code b} (Math.ceilDiv is Java 18's). */
    static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /** A leaky bucket's level at {@code t}, as leaky-bucket.lua drains it. */
    static long levelAt(long level, long at, long t, long leak) {
        if (level == 0) {
            return 0;
        }
        long elapsed = Math.max(0, t - at);
        return elapsed >= ceilDiv(level, leak) ? 0 : level - elapsed * leak;
    }

    private Replay gcra(List<Event> events, long now, long horizon) {
        long tat = Long.MIN_VALUE / 4;
        String violation = null;
        int forget = 0;
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            long t = e.micros();
            long limit = limitFor(e, 0);
            List<String> args = arguments(limit);
            long interval = Long.parseLong(args.get(0));
            long tolerance = Long.parseLong(args.get(1)) * interval;
            forget = tat <= t && e.nanos < horizon ? i : forget;
            long newTat = Math.max(tat, t) + e.permits * interval;
            if (violation == null && e.checked() && newTat - t > tolerance && !excused(events, i, now)) {
                violation = over(e, "gcra's TAT would be " + (newTat - t) + " us ahead of it, past the tolerance "
                        + tolerance + " us (limit " + limit + ", interval " + interval + " us)");
            }
            tat = newTat;
        }
        return new Replay(violation, tat, 0, forget);
    }
}
