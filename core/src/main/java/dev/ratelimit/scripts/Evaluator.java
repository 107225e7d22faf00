package dev.ratelimit.scripts;

import dev.ratelimit.Decision;
import dev.ratelimit.redis.LuaScript;
import java.util.Collections;
import java.util.List;

/** Decides the rules of one limiter for one client in one round trip. */
public interface Evaluator {

    /**
     * @param keys one Redis key per rule, all sharing a hash tag
     * @param permits permits per rule
     * @param consume true to take the permits if every rule allows; false only to look
     * @return the decision of the governing rule
     */
    Decision decide(List<String> keys, long[] permits, boolean consume);

    /**
     * As {@link #decide(List, long[], boolean)}, and an admission of an algorithm that
     * {@link dev.ratelimit.Algorithm#holdsLeases() holds leases} records {@code lease} as its own;
     * the others ignore it.
     */
    default Decision decide(List<String> keys, long[] permits, boolean consume, String lease) {
        return decide(keys, permits, consume);
    }

    /** The scripts this evaluator's calls run, for a warm-up to load ahead of them; none without scripts. */
    default List<LuaScript> scripts() {
        return Collections.emptyList();
    }
}
