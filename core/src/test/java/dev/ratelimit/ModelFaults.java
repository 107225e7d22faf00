package dev.ratelimit;

import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import java.util.Random;
import java.util.function.IntConsumer;

/**
 * The Redis faults both seeded models ({@link LeasesModel}, {@link GiveBacksModel}) draw as steps of
 * their own, from the model's {@link Random} in the same order, so that a seed replays the same run:
 * calls failing, refused or losing their replies, and give-backs held for some steps and landing later
 * in any order.
 */
final class ModelFaults {
    private ModelFaults() {
    }

    /** Redis fails the next calls, refuses the next one, or loses the next replies. */
    static String injectFailure(Random random, ScriptedRedisGateway redis) {
        int kind = random.nextInt(10);
        int count = 1 + random.nextInt(3);
        if (kind < 5) {
            redis.faults().failNext(count);
            return "Redis fails the next " + count + " calls";
        }
        if (kind < 7) {
            redis.faults().failNextWithErrorReply(1);
            return "Redis refuses the next call";
        }
        redis.faults().loseNextReplies(Math.min(2, count));
        return "Redis loses the next " + Math.min(2, count) + " replies";
    }

    /**
     * Holds give-backs for some steps (their calls time out, to run later), telling {@code holdUntil} the
     * step they are held to, or lands one held, in any order.
     */
    static String holdOrRelease(Random random, ScriptedRedisGateway redis, int step, IntConsumer holdUntil) {
        if (!redis.faults().holdingRefunds() && random.nextBoolean()) {
            int until = step + 5 + random.nextInt(40);
            holdUntil.accept(until);
            redis.faults().holdRefunds(true);
            return "give-backs are held until step " + until;
        }
        int held = redis.faults().heldRefunds();
        if (held > 0) {
            int index = random.nextInt(held);
            return "held give-back " + index + " of " + held + " lands: " + redis.releaseHeld(index);
        }
        return "nothing held";
    }
}
