package dev.ratelimit;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * The steps of {@link GiveBacksModel}, drawn from its seeded {@link Random}: which kind, which node,
 * which client, how many permits, how long a wait may be, which held admission to settle and at what
 * usage, how much time. Clients differ in how busy they are (c0 about half the requests, c3 a tenth);
 * time mostly moves by milliseconds, sometimes by a window or more, so that clients reach their limit,
 * wait for their turn and are given back to both before and after it.
 */
final class GiveBackSteps {
    private GiveBackSteps() {
    }

    static String one(GiveBacksModel model) {
        Random random = model.random;
        GiveBackSwitches switches = model.config.switches();
        if (model.redis.faults().holdingRefunds() && model.step() >= model.holdUntil) {
            model.redis.faults().holdRefunds(false);
        }
        // Out of 1000; a kind switched off (or with nothing to act on) is a request instead.
        int roll = random.nextInt(1000);
        if (roll < 330) {
            return request(model);
        } else if (roll < 470) {
            return switches.delays() ? delayed(model) : request(model);
        } else if (roll < 680) {
            return advance(model);
        } else if (roll < 770) {
            return !switches.refunds() || model.held.isEmpty() ? request(model) : model.settle(random.nextInt(model.held.size()), node(model), -1);
        } else if (roll < 820) {
            return switches.charges() && !model.held.isEmpty() ? charge(model) : request(model);
        } else if (roll < 845) {
            return switches.resets() ? GiveBackResets.reset(model, node(model), client(random, false)) : request(model);
        } else if (roll < 855) {
            return switches.resets() ? GiveBackResets.reset(model, node(model), random.nextInt(4) == 0 ? -1 : 3) : request(model);
        } else if (roll < 875) {
            return switches.overrides() ? model.override(node(model)) : request(model);
        } else if (roll < 880) {
            return switches.restarts() ? GiveBackResets.restart(model) : request(model);
        } else if (roll < 915) {
            return switches.failures() ? ModelFaults.injectFailure(model.random, model.redis) : request(model);
        } else if (roll < 955) {
            return switches.heldGiveBacks()
                    ? ModelFaults.holdOrRelease(model.random, model.redis, model.step(), until -> model.holdUntil = until)
                    : request(model);
        } else if (roll < 960) {
            return switches.flushes() ? GiveBackResets.flush(model) : request(model);
        }
        return request(model);
    }

    /** Ends the faults and lands every held give-back, in any order: the run's last step. */
    static String landEverything(GiveBacksModel model) {
        model.redis.faults().recover();
        model.redis.faults().holdRefunds(false);
        int landed = model.redis.faults().heldRefunds();
        while (model.redis.faults().heldRefunds() > 0) {
            model.redis.releaseHeld(model.random.nextInt(model.redis.faults().heldRefunds()));
        }
        return "the end: " + landed + " held give-backs land";
    }

    /** c0 about half the time, c1 a third, c2 the rest; with {@code dimension}, c3 (c0 as a dimension) a tenth. */
    private static int client(Random random, boolean dimension) {
        int roll = random.nextInt(20);
        if (dimension && roll < 2) {
            return 3;
        }
        return roll < 11 ? 0 : roll < 17 ? 1 : 2;
    }

    private static int node(GiveBacksModel model) {
        return model.random.nextInt(model.nodeCount());
    }

    private static long permits(Random random) {
        int roll = random.nextInt(20);
        return roll < 16 ? 1 : roll < 19 ? 2 : 3;
    }

    /** A request of one client, or one time in ten a batch of two or three ({@code tryAcquireAll}). */
    private static String request(GiveBacksModel model) {
        Random random = model.random;
        if (random.nextInt(10) > 0) {
            return model.request(node(model), client(random, true), permits(random));
        }
        Map<String, Long> batch = new LinkedHashMap<>();
        for (int i = 2 + random.nextInt(2); i > 0; i--) {
            batch.put(GiveBacksModel.KEYS[client(random, false)], permits(random));
        }
        return model.batch(node(model), batch);
    }

    /**
     * A wait of 1 ms to a window: short ones are mostly refused, long ones reach up to a window ahead.
     * One time in three, a burst of 2 to 12 such requests of one client at once (a client shaped by its
     * waits, whose bookings run a window ahead and whose log no plain admission trims).
     */
    private static String delayed(GiveBacksModel model) {
        Random random = model.random;
        int roll = random.nextInt(10);
        long maxDelay = roll < 3 ? 1 + random.nextInt(100) : roll < 6 ? 100 + random.nextInt(500) : 600 + random.nextInt(401);
        int c = client(random, false);
        if (random.nextInt(3) > 0) {
            return model.delayed(node(model), c, maxDelay);
        }
        int burst = 2 + random.nextInt(11);
        StringBuilder what = new StringBuilder("a burst of " + burst + ":");
        for (int i = 0; i < burst; i++) {
            what.append("\n      ").append(model.delayed(node(model), c, maxDelay));
        }
        return what.toString();
    }

    /** An after-charge of a held admission: below its cost half the time (a give-back of the difference), else above. */
    private static String charge(GiveBacksModel model) {
        Random random = model.random;
        int index = random.nextInt(model.held.size());
        long taken = model.held.get(index).event().taken;
        long capacity = model.rule.capacity();
        long usage = random.nextBoolean() ? random.nextInt((int) taken)
                : Math.min(capacity, taken + 1 + (random.nextInt(5) == 0 ? random.nextInt((int) capacity) : random.nextInt(3)));
        return model.settle(index, node(model), usage);
    }

    private static String advance(GiveBacksModel model) {
        Random random = model.random;
        int roll = random.nextInt(100);
        long micros;
        if (roll < 55) {
            micros = random.nextInt(3_000);
        } else if (roll < 80) {
            micros = 3_000 + random.nextInt(27_000);
        } else if (roll < 93) {
            micros = 30_000 + random.nextInt(270_000);
        } else if (roll < 98) {
            micros = 300_000 + random.nextInt(1_200_000);
        } else {
            micros = 1_500_000 + random.nextInt(1_500_000);
        }
        model.advance(micros * 1000 + random.nextInt(1000));
        return "time passes " + micros + "us";
    }
}
