package dev.ratelimit;

import dev.ratelimit.internal.engine.RulesInForce;
import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import java.util.ArrayList;
import java.util.List;

/**
 * The checks of {@link LeasesModel} that look at Redis' state rather than at an admission: after
 * every step, that each client's state is no laxer than one place's ({@link #states}); at a settle,
 * that once every lease is given back it is what the oracle holds ({@link #settle}); and that a
 * denial from a deny cache is one Redis still gives ({@link #cachedDenial}). Redis is read with
 * {@link ScriptedRedisGateway#evalQuietly} and GET, unheard by the model and unfailed.
 */
final class ModelChecks {
    private final LeasesModel model;
    /** Per client, when its state in Redis was last seen empty (nothing counted, a full bucket). */
    private final long[] lastEmpty;
    int livenessChecked;
    int livenessSkipped;

    ModelChecks(LeasesModel model, int clients) {
        this.model = model;
        this.lastEmpty = new long[clients];
    }

    private Rule rule() {
        return model.rule;
    }

    /** A denial from the deny cache must be one Redis would still give, unless another node reset a client unseen. */
    void cachedDenial(int n, int c, long permits) {
        if (model.calls.resetsSeen > 0 && model.calls.overridesReadAt[n] < model.lastResetAt) {
            return;
        }
        Rule inForce = model.limiter(n).effectiveRules().get(0);
        List<String> args = new ArrayList<>(List.of("0", Long.toString(permits)));
        args.addAll(inForce.algorithm().scriptArguments(inForce));
        List<Long> reply = model.redis.evalQuietly(LuaEvaluator.script(rule().algorithm()), model.redisKeys(c), args);
        model.check(reply.get(0) == 0, "node n" + n + " denied c" + c + " x" + permits + " from its deny cache, while "
                + "Redis admits it (remaining " + reply.get(2) + "): a give-back or reset elsewhere freed it");
    }

    /**
     * Each client's state in Redis is at least as strict as one place's for its admissions in its
     * current epoch (AdmissionBounds.oneplaceNow): counted permits no fewer, tokens no more, the TAT
     * no earlier. A permit lost from Redis' count (a give-back applied twice, or landing where it was
     * never taken) shows here at once, before any request uses it. Notes when a state is empty.
     */
    void states() {
        long now = model.now();
        for (int c = 0; c < lastEmpty.length; c++) {
            long oneplace = model.bounds.oneplaceNow(c, model.calls.epoch[c], now);
            switch (rule().algorithm()) {
                case FIXED_WINDOW, SLIDING_LOG -> {
                    long counted = redisState(c, 0);
                    emptyIf(c, counted == 0);
                    model.check(counted >= oneplace, "client c" + c + " has " + oneplace + " permits admitted in its "
                            + "window, but Redis counts only " + counted);
                }
                case TOKEN_BUCKET -> {
                    Object value = model.redis.command("GET", model.redisKeys(c).get(0));
                    List<String> args = rule().algorithm().scriptArguments(rule());
                    long capacity = Long.parseLong(args.get(0));
                    long tokens = capacity;
                    if (value != null) {
                        String[] parts = ((String) value).substring(1).split(" ");
                        tokens = AdmissionBounds.tokensAt(Long.parseLong(parts[0]), Long.parseLong(parts[1]), now / 1000,
                                capacity, Long.parseLong(args.get(2)));
                    }
                    emptyIf(c, tokens == capacity);
                    model.check(tokens <= oneplace, "client c" + c + " has " + tokens + " token units left in Redis, more "
                            + "than the " + oneplace + " one place has left after its admissions");
                }
                default -> {
                    Object value = model.redis.command("GET", model.redisKeys(c).get(0));
                    long tat = value == null ? now / 1000
                            : Math.max(now / 1000, -Long.parseLong(((String) value).split(" ")[0]));
                    emptyIf(c, tat == now / 1000);
                    model.check(tat >= oneplace, "client c" + c + "'s TAT in Redis is " + (oneplace - tat) + " us earlier "
                            + "than one place's for its admissions");
                }
            }
        }
    }

    private void emptyIf(int c, boolean empty) {
        if (empty) {
            lastEmpty[c] = model.now();
        }
    }

    /**
     * Ends what is pending (failures, held give-backs, leases) and checks liveness: each client whose
     * state no leak has touched since it was last empty (a leak stays until then: a window or log
     * with nothing in it, a full bucket) has in Redis what the oracle holds for exactly its
     * admissions: fixed-window the same count now; the others a lease's life later, which is how much
     * longer leased permits may count (sliding-log's lease entry, the buckets' lease taken as at its
     * end). The buckets' state also keeps the limit it was counted at: checked only where every node
     * has applied one limit since the state was last empty.
     */
    String settle() {
        ScriptedRedisGateway redis = model.redis;
        redis.faults().recover();
        redis.faults().cancelActions();
        redis.faults().holdRefunds(false);
        while (redis.faults().heldRefunds() > 0) {
            redis.releaseHeld(model.random.nextInt(redis.faults().heldRefunds()));
        }
        for (int n = 0; n < model.nodeCount(); n++) {
            model.giveBack(n);
        }
        long settledAt = model.now();
        boolean counting = model.oracle.counts();
        long limit = model.limiter(0).effectiveRules().get(0).limit();
        long[] expected = new long[lastEmpty.length];
        boolean[] checked = new boolean[lastEmpty.length];
        for (int c = 0; c < lastEmpty.length; c++) {
            boolean leaky = model.calls.leakedAt[c] >= lastEmpty[c];
            boolean moved = !counting && (model.limitsChangedAt >= lastEmpty[c] || !uniformLimits());
            checked[c] = !leaky && !moved;
            expected[c] = checked[c] ? model.oracle.state(c, model.calls.epoch[c], limit) : 0;
        }
        if (rule().algorithm() != Algorithm.FIXED_WINDOW) {
            model.advance(LeasesModel.LIFE_NANOS + 1_000_000);
        }
        StringBuilder what = new StringBuilder("settle:");
        for (int c = 0; c < lastEmpty.length; c++) {
            if (!checked[c]) {
                livenessSkipped++;
                what.append(" c").append(c).append(" skipped (a leak or a limit change since its state was last empty);");
                continue;
            }
            livenessChecked++;
            long actual = redisState(c, limit);
            what.append(" c").append(c).append(counting ? " counts " : " has ").append(actual).append(", one place ")
                    .append(expected[c]).append(';');
            if (rule().algorithm() == Algorithm.FIXED_WINDOW) {
                model.check(actual == expected[c], "after every give-back, client c" + c + " counts " + actual
                        + " permits in its window in Redis, but exactly " + expected[c] + " were admitted");
            } else if (counting) {
                model.check(actual <= expected[c], "a lease's life after every give-back, client c" + c + " counts "
                        + actual + " permits in Redis' log, more than the " + expected[c] + " admitted in the window before");
            } else {
                model.check(actual >= expected[c], "a lease's life after every give-back, client c" + c + " has " + actual
                        + " permits left in Redis, fewer than the " + expected[c] + " one place has left");
            }
        }
        return what.append(" (at +").append((settledAt - ScriptedRedisGateway.START_NANOS) / 1000).append("us)").toString();
    }

    private boolean uniformLimits() {
        for (int n = 0; n < model.nodeCount(); n++) {
            if (model.limiter(n).effectiveRules().get(0).limit() != model.limiter(0).effectiveRules().get(0).limit()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The client's state in the nodes' Redis, as the oracle's {@link ModelOracle#state} reads its own:
     * a peek of the production script at a limit no count reaches (fixed-window, sliding-log: the
     * count) or at {@code limit} (the buckets: what is left).
     */
    private long redisState(int c, long limit) {
        boolean counting = model.oracle.counts();
        Rule at = counting ? Rule.of(rule().algorithm(), ModelOracle.COUNTING_LIMIT, LeasesModel.WINDOW)
                : limit == rule().limit() ? rule() : RulesInForce.atLimit(List.of(rule()), limit).get(0);
        List<String> args = new ArrayList<>(List.of("0", "1"));
        args.addAll(at.algorithm().scriptArguments(at));
        long remaining = model.redis.evalQuietly(LuaEvaluator.script(rule().algorithm()), model.redisKeys(c), args).get(2);
        return counting ? ModelOracle.COUNTING_LIMIT - remaining : remaining;
    }
}
