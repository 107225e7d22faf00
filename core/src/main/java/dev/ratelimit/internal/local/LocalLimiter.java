package dev.ratelimit.internal.local;

import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.rules.LocalRules;
import dev.ratelimit.internal.scripts.ScriptCalls;
import dev.ratelimit.internal.support.Immutable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A node's own limiter for the time Redis cannot be asked ({@code onRedisFailure=local}): the
 * limiter's rules at their local limit, decided in memory with the same algorithm as the scripts
 * (see {@link LocalRuleState}), several rules all or nothing.
 *
 * <p>Bounded under hostile keys: at most {@code maxKeys} clients are tracked, in access-ordered
 * segments; a new client past a segment's share evicts that segment's least recently seen one, and
 * clients whose state has cleared (window over, bucket full) are dropped as they come to the front,
 * so an outage's state goes away without a thread. Only admissions are stored: a denial or a peek
 * writes nothing, as in the scripts. Thread-safe (a lock per segment); time comes from the injected
 * monotonic clock, read under the lock and never earlier than the segment's last decision, so time
 * runs forward for every client whatever order callers arrive in, and no answer points past the
 * state's window (sliding-log caps what its same-microsecond stamps would add, as its script does).
 * {@link #clear()} drops everything once Redis answers again.
 */
public final class LocalLimiter {
    /** Segments, so that concurrent clients rarely share a lock; one when the bound is small. */
    private static final int SEGMENTS = 16;
    /** What a request larger than the local capacity is told: it cannot fit until Redis is back. */
    private static final long TOO_LARGE_RETRY_MICROS = 1_000_000;

    private final List<Rule> rules;
    private final List<Supplier<LocalRuleState>> factories = new ArrayList<>();
    private final long[] costs;
    private final Segment[] segments;
    private final LongSupplier nanoClock;
    private final long origin;
    /** Whether anything may be stored: lets a Redis answer skip {@link #clear()} in the common case. */
    private volatile boolean holdsState;

    /** Clients in access order, the least recently seen first; evicts past its share of the bound. */
    private static final class Segment extends LinkedHashMap<String, LocalRuleState[]> {
        private static final long serialVersionUID = 1L;
        private final int maxKeys;
        /** The latest instant (µs) a decision here was made at; none is made at an earlier one. */
        private long latest;

        Segment(int maxKeys) {
            super(16, 0.75f, true);
            this.maxKeys = maxKeys;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, LocalRuleState[]> eldest) {
            return size() > maxKeys;
        }

        /**
         * The instant to decide at: the clock's, or the latest one decided here if the clock reads
         * earlier. A state is only ever asked at or after the instant it was written at; asked
         * before, its answers would point past the end of its window (a window opened at t1 and
         * asked at t0 < t1 lasts window + t1 - t0 from t0). The clock is read under the lock, so a
         * monotonic one never reads earlier; this holds for any other (a test's, or one that steps).
         */
        long instant(long clockMicros) {
            latest = Math.max(latest, clockMicros);
            return latest;
        }

        /** Drops the cleared clients at the front; each is dropped once, so this costs O(1) on average. */
        void dropCleared(long now) {
            Iterator<LocalRuleState[]> front = values().iterator();
            while (front.hasNext() && cleared(front.next(), now)) {
                front.remove();
            }
        }
    }

    /** @param rules the local rules ({@link LocalRules#scale}), all of one algorithm */
    public LocalLimiter(List<Rule> rules, int maxKeys, LongSupplier nanoClock, LongSupplier epochMillis) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1, but was " + maxKeys);
        }
        this.rules = Immutable.copyOf(rules);
        for (Rule rule : rules) {
            factories.add(LocalRuleState.factory(rule, epochMillis));
        }
        this.costs = rules.stream().mapToLong(Rule::cost).toArray();
        int count = maxKeys >= SEGMENTS * 64 ? SEGMENTS : 1;
        this.segments = new Segment[count];
        for (int i = 0; i < count; i++) {
            segments[i] = new Segment(maxKeys / count);
        }
        this.nanoClock = nanoClock;
        this.origin = nanoClock.getAsLong();
    }

    public List<Rule> rules() {
        return rules;
    }

    /**
     * The governing rule's {@link Decision#local()} decision for the client (a bounded key, as a Redis key of the
     * limiter is): all rules or none; only an admission that consumes is stored. Null permits: each rule's cost.
     */
    public Decision decide(String key, long[] permits, boolean consume) {
        return governing(evaluate(key, permits == null ? costs : permits, consume));
    }

    /** The scripts' reply for the same request: {all_allowed, then per rule: allowed, remaining, retry, reset}. */
    long[] evaluate(String key, long[] permits, boolean consume) {
        long[] reply = new long[1 + 4 * rules.size()];
        Segment segment = segmentOf(key);
        synchronized (segment) {
            // Read under the lock, not before it: callers that read the clock first could otherwise
            // reach the state last, and be decided at an instant older than the one it was written at.
            long now = segment.instant((nanoClock.getAsLong() - origin) / 1000);
            LocalRuleState[] states = segment.get(key);
            boolean known = states != null;
            if (!known) {
                states = new LocalRuleState[rules.size()];
                for (int i = 0; i < states.length; i++) {
                    states[i] = factories.get(i).get();
                }
            }
            boolean allAllowed = true;
            for (int i = 0; i < states.length; i++) {
                int at = 1 + 4 * i;
                if (!states[i].check(permits[i], consume, now, reply, at)) {
                    allAllowed = false;
                }
                if (permits[i] > rules.get(i).capacity()) {
                    reply[at + LocalRuleState.RETRY] = TOO_LARGE_RETRY_MICROS;
                }
            }
            reply[0] = allAllowed ? 1 : 0;
            if (allAllowed && consume) {
                for (int i = 0; i < states.length; i++) {
                    states[i].commit(permits[i], now, reply, 1 + 4 * i);
                }
                if (!known) {
                    segment.put(key, states);
                }
                holdsState = true;
            }
            segment.dropCleared(now);
        }
        return reply;
    }

    private Segment segmentOf(String key) {
        return segments[segments.length == 1 ? 0 : (key.hashCode() & 0x7fffffff) % segments.length];
    }

    /** As the Lua evaluator ({@link ScriptCalls#governing}), but a {@link Decision#local()} one. */
    private Decision governing(long[] reply) {
        boolean allowed = reply[0] == 1;
        int chosen = ScriptCalls.governing(rules.size(), allowed, i -> reply[i]);
        int at = 1 + 4 * chosen;
        Duration retryAfter = allowed ? Duration.ZERO : ScriptCalls.micros(reply[at + 2]);
        return Decision.local(allowed, rules.get(chosen), reply[at + 1], retryAfter, ScriptCalls.micros(reply[at + 3]));
    }

    private static boolean cleared(LocalRuleState[] states, long now) {
        for (LocalRuleState state : states) {
            if (!state.clear(now)) {
                return false;
            }
        }
        return true;
    }

    /** Whether some client's state may be stored: false right after {@link #clear()}. */
    public boolean holdsState() {
        return holdsState;
    }

    /** Forgets one client (a reset). */
    public void forget(String key) {
        Segment segment = segmentOf(key);
        synchronized (segment) {
            segment.remove(key);
        }
    }

    /** Forgets every client: Redis answers again, so it alone decides. */
    public void clear() {
        holdsState = false;
        for (Segment segment : segments) {
            synchronized (segment) {
                segment.clear();
            }
        }
    }

    public int size() {
        int size = 0;
        for (Segment segment : segments) {
            synchronized (segment) {
                size += segment.size();
            }
        }
        return size;
    }
}
