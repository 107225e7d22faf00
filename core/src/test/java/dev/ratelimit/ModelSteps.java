package dev.ratelimit;

import java.util.Random;

/**
 * The steps of {@link LeasesModel}, drawn from its seeded {@link Random}: which kind, which node,
 * which client, how many permits, how much time. Clients differ in how busy they are (six, three and
 * one in ten requests) and each mostly comes back to its home node, so that leases are lent (a client
 * must come back to a node at a pace before it is); time mostly moves by milliseconds, sometimes by
 * a lease's life or a window or more.
 */
final class ModelSteps {
    private ModelSteps() {
    }

    static String one(LeasesModel model) {
        Random random = model.random;
        ModelSwitches switches = model.config.switches();
        if (model.redis.faults().holdingRefunds() && model.step() >= model.holdUntil) {
            model.redis.faults().holdRefunds(false);
        }
        // Out of 1000; a kind switched off is a request instead.
        int roll = random.nextInt(1000);
        if (roll < 480) {
            return request(model);
        } else if (roll < 760) {
            return advance(model);
        } else if (roll < 790) {
            int n = node(model);
            model.giveBack(n);
            return "n" + n + " gives back its leases";
        } else if (roll < 810) {
            return switches.overrides() ? model.override(node(model), 0) : request(model);
        } else if (roll < 830) {
            return switches.resets() ? model.reset(node(model), client(random)) : request(model);
        } else if (roll < 838) {
            return model.replace(node(model), true);
        } else if (roll < 842) {
            return model.replace(node(model), false);
        } else if (roll < 880) {
            return ModelFaults.injectFailure(model.random, model.redis);
        } else if (roll < 920) {
            return switches.heldGiveBacks()
                    ? ModelFaults.holdOrRelease(model.random, model.redis, model.step(), until -> model.holdUntil = until)
                    : request(model);
        } else if (roll < 932) {
            return model.settle();
        } else if (roll < 937) {
            return switches.flushes() ? model.flush() : request(model);
        }
        return switches.inFlight() ? inFlight(model) : request(model);
    }

    private static int client(Random random) {
        int roll = random.nextInt(10);
        return roll < 6 ? 0 : roll < 9 ? 1 : 2;
    }

    private static int node(LeasesModel model) {
        return model.random.nextInt(model.nodeCount());
    }

    private static long permits(Random random) {
        int roll = random.nextInt(20);
        return roll < 17 ? 1 : roll < 19 ? 2 : 3;
    }

    private static String request(LeasesModel model) {
        Random random = model.random;
        int c = client(random);
        int n = random.nextInt(4) > 0 ? c % model.nodeCount() : node(model);
        return model.request(n, c, permits(random));
    }

    private static String advance(LeasesModel model) {
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
        long nanos = micros * 1000 + random.nextInt(1000);
        model.advance(nanos);
        return "time passes " + micros + "us";
    }

    /**
     * A request whose call, before its script runs or after it ran and before the node has the reply,
     * meets another operation: a request of the same client on any node (the same one too: two
     * threads), a give-back, an override and a request that applies it there at once, a reset, or the test kit's
     * reset (another thread's test). When the request makes no script call (a lease
     * admits it), the other operation runs after it.
     */
    private static String inFlight(LeasesModel model) {
        Random random = model.random;
        ModelSwitches switches = model.config.switches();
        int c = client(random);
        int n = random.nextInt(2) == 0 ? c % model.nodeCount() : node(model);
        int other = node(model);
        long permits = permits(random);
        int kind = random.nextInt(switches.flushes() ? 5 : 4);
        StringBuilder nested = new StringBuilder();
        Runnable action = () -> nested.append(switch (kind) {
            case 0 -> model.request(other, c, permits(random));
            case 1 -> {
                model.giveBack(other);
                yield "n" + other + " gives back its leases";
            }
            case 2 -> switches.inFlightOverrides() ? model.override(other, 0) + ", then " + model.request(other, c, 1)
                    : model.request(other, c, 1);
            case 3 -> switches.resets() ? model.reset(other, c) : model.request(other, c, 1);
            default -> model.flush();
        });
        boolean before = random.nextBoolean();
        String script = model.rule.algorithm().configName();
        if (before) {
            model.redis.faults().beforeNextScript(script, action);
        } else {
            model.redis.faults().afterNextScript(script, action);
        }
        String outer = model.request(n, c, permits);
        String when = before ? "before its script: " : "after its script ran: ";
        if (model.redis.faults().cancelActions()) {
            action.run();
            when = "after it (no script call): ";
        }
        return outer + " {in flight, " + when + nested + "}";
    }
}
