package dev.ratelimit;

import java.util.Collections;
import java.util.List;

/**
 * The writers of {@link GiveBacksModel} that end a client's state from outside a decision: {@code reset},
 * {@code resetEach}, a Redis restart that loses every key and the test kit's reset, each starting the next epoch of the
 * clients it deletes (GiveBackCalls hears the DEL). Without {@code staleGiveBacks} the give-backs held
 * for those clients are dropped first; without {@code sameMicrosecond} a microsecond passes after each.
 */
final class GiveBackResets {
    private GiveBackResets() {
    }

    /**
     * Without stale give-backs, the give-backs held for a client's key never land once the client is
     * reset ({@code c}; -1: every client, a restart or a flush): their connection closed first.
     */
    private static String dropHeldOf(GiveBacksModel model, int c) {
        if (model.config.switches().staleGiveBacks()) {
            return "";
        }
        int dropped = 0;
        List<String> keys = model.redis.heldKeys();
        for (int i = keys.size() - 1; i >= 0; i--) {
            if (c < 0 || keys.get(i).equals(model.redisKey(c))) {
                model.redis.dropHeld(i);
                dropped++;
            }
        }
        return dropped == 0 ? "" : " (" + dropped + " held give-backs dropped first)";
    }

    /** Resets client {@code c} on node {@code n}: c3 by {@code resetEach}, and -1 as {@code resetEach} of no key. */
    static String reset(GiveBacksModel model, int n, int c) {
        String dropped = c < 0 ? "" : dropHeldOf(model, c);
        try {
            if (c < 0) {
                model.limiter(n).resetEach(Collections.singletonList(null));
            } else if (c < GiveBacksModel.KEYS.length) {
                model.limiter(n).reset(GiveBacksModel.KEYS[c]);
            } else {
                model.limiter(n).resetEach(List.of(GiveBacksModel.KEYS[0]));
            }
            return "n" + n + (c < 0 ? " resets no dimension (resetEach of null)" : " resets c" + c) + dropped + apart(model);
        } catch (RedisFailureException e) {
            return "n" + n + " resets c" + c + ", failing" + apart(model);
        }
    }

    /** Without {@code sameMicrosecond}, a microsecond passes after a reset or a restart, so that the next state is born later. */
    private static String apart(GiveBacksModel model) {
        if (model.config.switches().sameMicrosecond()) {
            return "";
        }
        model.advance(1000);
        return " (then 1us passes)";
    }

    /**
     * Redis restarts without its data: every key (and the overrides) gone. A restart (or a failover to
     * a replica that lost writes) takes longer than the 10 ms within which fixed-window takes a
     * window's end for the same window (refund.lua): 20 ms pass here.
     */
    static String restart(GiveBacksModel model) {
        return everyKeyGone(model, false, "Redis restarts and loses every key");
    }

    /**
     * The test kit's reset ({@code TestOnlyRedis.reset}): every key gone, and every node told at once
     * ({@code RedisGateway.whenFlushed}), forgetting what it kept of them (remembered denials) and reading
     * the overrides again. The kit's clock moves 20 ms with it, as long as a restart takes here.
     */
    static String flush(GiveBacksModel model) {
        return everyKeyGone(model, true, "the test kit resets Redis: every key gone, every node told");
    }

    /** Every key gone, the nodes told at once ({@code told}, the kit's flush) or not (a restart); then 20 ms pass. */
    private static String everyKeyGone(GiveBacksModel model, boolean told, String what) {
        String dropped = dropHeldOf(model, -1);
        if (told) {
            model.redis.flush();
            model.flushedDenyCaches.flushed();
        } else {
            model.redis.loseData();
        }
        model.calls.restart();
        model.advance(RESTART_NANOS);
        return what + dropped + " (20 ms pass)";
    }

    /** How long a restart takes here ({@link #restart}), and how far the test kit's clock moves at its reset (TestOnlyGateway). */
    static final long RESTART_NANOS = 20_000_000L;
}
