package dev.ratelimit;

import dev.ratelimit.redis.ScriptedRedisGateway;
import dev.ratelimit.scripts.LuaEvaluator;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One seeded run of the model check of quota leases (issue 37), see QuotaLeasesModelTest: 2 to 4
 * leasing nodes on one {@link ScriptedRedisGateway} and one manual clock, three clients, and steps
 * drawn from a {@link Random} of the seed: requests, time passing, give-backs, overrides, resets,
 * nodes replaced or lost, Redis failures, give-backs held and reordered, operations while another's
 * call is in flight, and now and then a settle that checks liveness. After every step each admission
 * is checked against {@link AdmissionBounds} and fed to the {@link ModelOracle}; the first violation
 * fails the run with the seed, the switches and the last 30 steps.
 */
final class LeasesModel {
    static final Duration WINDOW = Duration.ofSeconds(1);
    /** A lease's life for this window: a tenth of it. */
    static final long LIFE_NANOS = WINDOW.toNanos() / 10;
    private static final int CLIENTS = 3;
    /** How many of the last steps a failure shows: {@code -Dleases.model.log}, 30 unless set. */
    private static final int LOG_STEPS = Integer.getInteger("leases.model.log", 30);
    private static final String[] KEYS = {"c0", "c1", "c2"};

    record Config(Algorithm algorithm, long seed, int steps, ModelSwitches switches) {
    }

    /** What a run did: enough of each to trust that it checked what it says. */
    record Summary(int steps, long redisAdmissions, long leaseAdmissions, long grants, long denials,
            int livenessChecked, int livenessSkipped, long resets, long failuresInjected, long cacheDenials) {
    }

    /** One node: its limiter and, per client, the epoch of the lease it holds (-1: none) and its grant's call. */
    private static final class Node {
        final RateLimiter limiter;
        final FailurePolicy policy;
        final int[] leaseEpoch = {-1, -1, -1};
        final long[] leaseSeq = new long[CLIENTS];
        /** Per client, leases granted before this call were forgotten by the node's own reset of it. */
        final long[] forgotBefore = new long[CLIENTS];

        Node(RateLimiter limiter, FailurePolicy policy) {
            this.limiter = limiter;
            this.policy = policy;
        }
    }

    final Config config;
    final Random random;
    final ScriptedRedisGateway redis = new ScriptedRedisGateway();
    final Rule rule;
    final ModelOracle oracle;
    final AdmissionBounds.LimitTimeline limits = new AdmissionBounds.LimitTimeline();
    final AdmissionBounds bounds;
    final ModelCalls calls;
    final Node[] nodes;
    final long[] overrideLimits;
    private final RedisStore store = TestStores.over(redis);
    private final Deque<String> log = new ArrayDeque<>();
    private final List<AdmissionBounds.Admission> leased = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    /** Per client, when its state in Redis was last seen empty (nothing counted, a full bucket). */
    private final long[] lastEmpty = new long[CLIENTS];
    private int step;
    private String limitsSeen = "";
    private long limitsChangedAt = Long.MIN_VALUE / 2;
    private long stepMaxLimit;
    private boolean holding;
    private int holdUntil;
    private long redisAdmissions;
    private long leaseAdmissions;
    private long denials;
    private long failuresInjected;
    private long cacheDenials;
    private int livenessChecked;
    private int livenessSkipped;

    LeasesModel(Config config) {
        this.config = config;
        this.random = new Random(config.seed());
        Algorithm algorithm = config.algorithm();
        boolean bucket = algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA;
        // Limits that divide the window in whole microseconds (see AdmissionBounds); buckets small, so that
        // a lease's life (the liveness check's allowance) is a permit or two of their interval.
        this.rule = Rule.of(algorithm, bucket ? 16 : 40, WINDOW);
        this.overrideLimits = bucket ? new long[] {8, 10, 16, 20, 25} : new long[] {16, 25, 40, 50, 80};
        this.oracle = new ModelOracle(rule);
        this.bounds = new AdmissionBounds(rule, limits);
        this.nodes = new Node[2 + random.nextInt(3)];
        Map<String, Integer> clientOf = new HashMap<>();
        this.calls = new ModelCalls(algorithm.configName(), clientOf, CLIENTS, nodes.length, redis);
        for (int n = 0; n < nodes.length; n++) {
            nodes[n] = newNode();
        }
        for (int c = 0; c < CLIENTS; c++) {
            clientOf.put(nodes[0].limiter.redisKeys(KEYS[c]).get(0), c);
        }
        stepMaxLimit = recordLimits();
    }

    private Node newNode() {
        FailurePolicy policy = new FailurePolicy[] {FailurePolicy.ALLOW, FailurePolicy.ALLOW, FailurePolicy.DENY, null}[
                random.nextInt(4)];
        RateLimiterBuilder builder = RateLimiter.builder(store).policyName("model").keyPrefix("m:").rule(rule)
                .leases(true).localDenyCache(config.switches().denyCache()).clock(redis::nanoTime);
        return new Node((policy == null ? builder : builder.onRedisFailure(policy)).build(), policy);
    }

    Summary run() {
        for (step = 0; step < config.steps(); step++) {
            if (config.switches().doubleGiveBack() && step == config.switches().doubleGiveBackAfter()) {
                redis.replayNextRefund();
            }
            String what = ModelSteps.one(this);
            endStep(what);
        }
        step = config.steps();
        endStep(settle());
        return new Summary(config.steps(), redisAdmissions, leaseAdmissions, calls.grants, denials, livenessChecked,
                livenessSkipped, calls.resetsSeen, failuresInjected, cacheDenials);
    }

    long now() {
        return redis.nanoTime();
    }

    /** Moves both clocks; without late give-backs, each node gives back its leases at every lease's end on the way. */
    void advance(long nanos) {
        long target = now() + nanos;
        while (!config.switches().lateGiveBacks() && !calls.leaseEnds.isEmpty() && calls.leaseEnds.peek()[0] <= target) {
            long[] end = calls.leaseEnds.poll();
            move(Math.max(0, end[0] - now()));
            int n = (int) end[1];
            if (n >= 0 && calls.generation[n] == end[2]) {
                giveBack(n);
            }
        }
        move(target - now());
    }

    private void move(long nanos) {
        redis.advance(Duration.ofNanos(nanos));
        oracle.advance(Duration.ofNanos(nanos));
    }

    /** A request of {@code permits} by client {@code c} on node {@code n}, checked; returns what happened. */
    String request(int n, int c, long permits) {
        Node node = nodes[n];
        RateLimiterStats before = node.limiter.stats();
        Rule rulesBefore = node.limiter.effectiveRules().get(0);
        long startSeq = calls.seq;
        ModelCalls.Frame frame = calls.enter(n);
        Decision decision;
        try {
            decision = node.limiter.tryAcquire(KEYS[c], permits);
        } catch (RedisFailureException e) {
            decision = null;
        } finally {
            calls.leave(frame);
        }
        RateLimiterStats after = node.limiter.stats();
        if (!node.limiter.effectiveRules().get(0).equals(rulesBefore)) {
            // The rules changed at the start of this decision (RulesInForce.rebase): every lease was ended.
            calls.droppedBefore[n] = Math.max(calls.droppedBefore[n], startSeq);
        }
        boolean fromLease = after.leaseAdmissions() > before.leaseAdmissions();
        boolean cached = after.localCacheDenials() > before.localCacheDenials();
        boolean redisAdmitted = false;
        boolean redisDenied = false;
        for (ModelCalls.Seen seen : frame.seen) {
            if (seen.client() == c && seen.consumed() && seen.call().outcome() == ScriptedRedisGateway.Outcome.ANSWERED) {
                redisAdmitted |= seen.admitted();
                redisDenied |= seen.denied();
                if (seen.admitted()) {
                    // The lease the node now holds for the client is this admission's (or none).
                    node.leaseEpoch[c] = seen.granted() > 0 ? seen.epoch() : -1;
                    node.leaseSeq[c] = seen.seq();
                }
            }
        }
        String what = "c" + c + "@n" + n + " x" + permits + " -> ";
        if (decision == null) {
            return what + "threw (no failure policy)";
        }
        if (decision.allowed() && decision.degraded()) {
            check(frame.failures > 0, "node n" + n + " admitted c" + c + " degraded though no call failed: " + decision);
            return what + "admitted degraded";
        }
        if (decision.allowed() && fromLease) {
            check(node.leaseEpoch[c] >= 0, "node n" + n + " admitted c" + c + " from a lease no call granted it");
            check(node.leaseSeq[c] > calls.droppedBefore[n], "node n" + n + " admitted c" + c + " from a lease granted "
                    + "before it read a client reset or applied new rules, which end every lease on the node (the grant "
                    + "was in flight then)");
            check(node.leaseSeq[c] > node.forgotBefore[c], "node n" + n + " admitted c" + c + " from a lease granted "
                    + "before the node itself reset c" + c + ", which drops that lease (the grant was in flight then)");
            leaseAdmissions++;
            leased.add(new AdmissionBounds.Admission(c, Math.max(0, node.leaseEpoch[c]), now(), permits, true, n));
            return what + "admitted from lease, remaining " + decision.remaining();
        }
        if (decision.allowed()) {
            check(redisAdmitted, "node n" + n + " admitted c" + c + " with no admission by Redis nor lease: " + decision);
            redisAdmissions++;
            return what + "admitted by Redis, remaining " + decision.remaining();
        }
        denials++;
        if (decision.degraded()) {
            return what + "denied degraded";
        }
        check(redisDenied || cached, "node n" + n + " denied c" + c + " neither from Redis nor its deny cache: " + decision);
        if (cached) {
            cacheDenials++;
            checkCachedDenial(n, c, permits);
            return what + "denied from the deny cache";
        }
        return what + "denied by Redis, retry after " + decision.retryAfter().toNanos() / 1000 + "us";
    }

    /** A denial from the deny cache must be one Redis would still give, unless another node reset a client unseen. */
    private void checkCachedDenial(int n, int c, long permits) {
        if (calls.resetsSeen > 0 && calls.overridesReadAt[n] < lastResetAt()) {
            return;
        }
        Rule inForce = nodes[n].limiter.effectiveRules().get(0);
        List<String> args = new ArrayList<>(List.of("0", Long.toString(permits)));
        args.addAll(inForce.algorithm().scriptArguments(inForce));
        List<Long> reply = redis.evalQuietly(LuaEvaluator.script(rule.algorithm()), nodes[n].limiter.redisKeys(KEYS[c]), args);
        check(reply.get(0) == 0, "node n" + n + " denied c" + c + " x" + permits + " from its deny cache, while Redis "
                + "admits it (remaining " + reply.get(2) + "): a give-back or reset elsewhere freed it");
    }

    private long lastResetAt = Long.MIN_VALUE / 2;

    private long lastResetAt() {
        return lastResetAt;
    }

    void giveBack(int n) {
        ModelCalls.Frame frame = calls.enter(n);
        try {
            nodes[n].limiter.giveBackLeases();
        } finally {
            calls.leave(frame);
        }
    }

    String override(int n) {
        if (rule.algorithm() == Algorithm.TOKEN_BUCKET) {
            return "no override: token-bucket refuses them";
        }
        ModelCalls.Frame frame = calls.enter(n);
        try {
            if (random.nextInt(3) == 0) {
                nodes[n].limiter.overrides().clear("model");
                return "n" + n + " clears the overrides";
            }
            long limit = overrideLimits[random.nextInt(overrideLimits.length)];
            nodes[n].limiter.overrides().setLimit(limit, "model");
            return "n" + n + " sets the limit to " + limit;
        } catch (RedisFailureException e) {
            return "n" + n + " cannot write the overrides";
        } finally {
            calls.leave(frame);
        }
    }

    String reset(int n, int c) {
        nodes[n].forgotBefore[c] = calls.seq;
        ModelCalls.Frame frame = calls.enter(n);
        lastResetAt = now();
        try {
            nodes[n].limiter.reset(KEYS[c]);
            return "n" + n + " resets c" + c;
        } catch (RedisFailureException e) {
            return "n" + n + " resets c" + c + ", failing";
        } finally {
            calls.leave(frame);
        }
    }

    String replace(int n, boolean graceful) {
        if (graceful) {
            giveBack(n);
        } else {
            Arrays.fill(calls.leakedAt, now());
        }
        calls.generation[n]++;
        calls.markRead[n] = -1;
        calls.droppedBefore[n] = calls.seq;
        nodes[n] = newNode();
        return "n" + n + (graceful ? " stops and is replaced" : " is lost (its leases with it) and replaced") + " (policy "
                + nodes[n].policy + ")";
    }

    String injectFailure() {
        failuresInjected++;
        int kind = random.nextInt(10);
        int count = 1 + random.nextInt(3);
        if (kind < 5) {
            redis.failNext(count);
            return "Redis fails the next " + count + " calls";
        }
        if (kind < 7) {
            redis.failNextWithErrorReply(1);
            return "Redis refuses the next call";
        }
        redis.loseNextReplies(Math.min(2, count));
        return "Redis loses the next " + Math.min(2, count) + " replies";
    }

    /** Holds give-backs for some steps, or releases one held, in any order. */
    String holdOrRelease() {
        if (!holding && random.nextBoolean()) {
            holding = true;
            holdUntil = step + 5 + random.nextInt(40);
            redis.holdRefunds(true);
            return "give-backs are held until step " + holdUntil;
        }
        if (redis.heldRefunds() > 0) {
            int index = random.nextInt(redis.heldRefunds());
            return "held give-back " + index + " of " + redis.heldRefunds() + " lands: " + redis.releaseHeld(index);
        }
        return "nothing held";
    }

    /**
     * Ends what is pending (failures, held give-backs, leases) and checks liveness: each client whose
     * state no leak can have touched has, in the nodes' Redis, what the oracle holds for exactly its
     * admissions (fixed-window: the same count now; the others a lease's life later, which is how
     * much longer leased permits may count: sliding-log's lease entry, the buckets' lease taken at
     * its end).
     */
    String settle() {
        redis.recover();
        redis.cancelActions();
        redis.holdRefunds(false);
        holding = false;
        while (redis.heldRefunds() > 0) {
            redis.releaseHeld(random.nextInt(redis.heldRefunds()));
        }
        for (int n = 0; n < nodes.length; n++) {
            giveBack(n);
        }
        long settledAt = now();
        boolean counting = oracle.counts();
        long limit = nodes[0].limiter.effectiveRules().get(0).limit();
        long[] expected = new long[CLIENTS];
        boolean[] checked = new boolean[CLIENTS];
        for (int c = 0; c < CLIENTS; c++) {
            // A leak stays in Redis' state until that state is empty again (a window or log with nothing in
            // it, a full bucket); a bucket's state also keeps the limit it was counted at.
            boolean leaky = calls.leakedAt[c] >= lastEmpty[c];
            boolean moved = !counting && (limitsChangedAt >= lastEmpty[c] || !uniformLimits());
            checked[c] = !leaky && !moved;
            expected[c] = checked[c] ? oracle.state(c, calls.epoch[c], limit) : 0;
        }
        if (rule.algorithm() != Algorithm.FIXED_WINDOW) {
            advance(LIFE_NANOS + 1_000_000);
        }
        StringBuilder what = new StringBuilder("settle:");
        for (int c = 0; c < CLIENTS; c++) {
            if (!checked[c]) {
                livenessSkipped++;
                what.append(" c").append(c).append(" skipped (a leak or a limit change since its state was last empty);");
                continue;
            }
            livenessChecked++;
            long actual = redisState(c, limit);
            String state = " c" + c + (counting ? " counts " : " has ") + actual + ", one place " + expected[c];
            what.append(state).append(';');
            if (rule.algorithm() == Algorithm.FIXED_WINDOW) {
                check(actual == expected[c], "after every give-back, client c" + c + " counts " + actual
                        + " permits in its window in Redis, but exactly " + expected[c] + " were admitted");
            } else if (counting) {
                check(actual <= expected[c], "a lease's life after every give-back, client c" + c + " counts " + actual
                        + " permits in Redis' log, more than the " + expected[c] + " admitted in the window before");
            } else {
                check(actual >= expected[c], "a lease's life after every give-back, client c" + c + " has " + actual
                        + " permits left in Redis, fewer than the " + expected[c] + " one place has left for its admissions");
            }
        }
        return what.append(" (at +").append((settledAt - ScriptedRedisGateway.START_NANOS) / 1000).append("us, limits ")
                .append(limitsSeen).append(" since +").append((limitsChangedAt - ScriptedRedisGateway.START_NANOS) / 1000)
                .append("us)").toString();
    }

    /**
     * After every step, each client's state in Redis is at least as strict as one place's for its
     * admissions in its current epoch (AdmissionBounds.oneplaceNow): counted permits no fewer, tokens
     * no more, the TAT no earlier. A permit lost from Redis' count (a give-back applied twice, one
     * landing where it was never taken) shows here at once, before any request uses it.
     */
    private void checkStates() {
        for (int c = 0; c < CLIENTS; c++) {
            long oneplace = bounds.oneplaceNow(c, calls.epoch[c], now());
            String key = nodes[0].limiter.redisKeys(KEYS[c]).get(0);
            switch (rule.algorithm()) {
                case FIXED_WINDOW, SLIDING_LOG -> {
                    long counted = redisState(c, 0);
                    emptyIf(c, counted == 0);
                    check(counted >= oneplace, "client c" + c + " has " + oneplace + " permits admitted in its window, "
                            + "but Redis counts only " + counted);
                }
                case TOKEN_BUCKET -> {
                    Object value = redis.command("GET", key);
                    List<String> args = rule.algorithm().scriptArguments(rule);
                    long tokens = Long.parseLong(args.get(0));
                    if (value != null) {
                        String[] parts = ((String) value).substring(1).split(" ");
                        tokens = AdmissionBounds.tokensAt(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                                now() / 1000, tokens, Long.parseLong(args.get(2)));
                    }
                    emptyIf(c, tokens == Long.parseLong(args.get(0)));
                    check(tokens <= oneplace, "client c" + c + " has " + tokens + " token units left in Redis, more than "
                            + "the " + oneplace + " one place has left after its admissions");
                }
                default -> {
                    Object value = redis.command("GET", key);
                    long tat = value == null ? now() / 1000 : Math.max(now() / 1000, -Long.parseLong((String) value));
                    emptyIf(c, tat == now() / 1000);
                    check(tat >= oneplace, "client c" + c + "'s TAT in Redis is " + (oneplace - tat) + " us earlier than "
                            + "one place's for its admissions");
                }
            }
        }
    }

    private void emptyIf(int c, boolean empty) {
        if (empty) {
            lastEmpty[c] = now();
        }
    }

    /**
     * The client's state in the nodes' Redis, as the oracle's {@link ModelOracle#state} reads its own:
     * a peek of the production script, unheard, at a limit no count reaches (fixed-window,
     * sliding-log: the count) or at {@code limit} (the buckets: what is left).
     */
    private long redisState(int c, long limit) {
        boolean counting = oracle.counts();
        Rule at = counting ? Rule.of(rule.algorithm(), ModelOracle.COUNTING_LIMIT, WINDOW)
                : limit == rule.limit() ? rule : dev.ratelimit.engine.RulesInForce.atLimit(List.of(rule), limit).get(0);
        List<String> args = new ArrayList<>(List.of("0", "1"));
        args.addAll(at.algorithm().scriptArguments(at));
        long remaining = redis.evalQuietly(LuaEvaluator.script(rule.algorithm()), nodes[0].limiter.redisKeys(KEYS[c]), args)
                .get(2);
        return counting ? ModelOracle.COUNTING_LIMIT - remaining : remaining;
    }

    void check(boolean holds, String violation) {
        if (!holds) {
            violations.add(violation);
        }
    }

    private boolean uniformLimits() {
        for (Node node : nodes) {
            if (node.limiter.effectiveRules().get(0).limit() != nodes[0].limiter.effectiveRules().get(0).limit()) {
                return false;
            }
        }
        return true;
    }

    /** The largest limit the live nodes apply now; notes when the nodes' limits changed. */
    private long recordLimits() {
        long max = 0;
        StringBuilder seen = new StringBuilder();
        for (Node node : nodes) {
            long limit = node.limiter.effectiveRules().get(0).limit();
            max = Math.max(max, limit);
            seen.append(limit).append(',');
        }
        if (!seen.toString().equals(limitsSeen)) {
            limitsSeen = seen.toString();
            limitsChangedAt = now();
        }
        return max;
    }

    /** Records the limits in force, checks the step's admissions, and fails the run on a violation. */
    private void endStep(String what) {
        long after = recordLimits();
        limits.record(now(), Math.max(stepMaxLimit, after));
        limits.record(now(), after);
        stepMaxLimit = after;
        List<AdmissionBounds.Admission> admissions = new ArrayList<>(calls.counted);
        calls.counted.clear();
        admissions.addAll(leased);
        leased.clear();
        for (AdmissionBounds.Admission admission : admissions) {
            String over = bounds.admit(admission);
            check(over == null, over);
            String denied = oracle.feed(admission, limits.max(admission.nanos(), admission.nanos()));
            check(denied == null, denied);
        }
        checkStates();
        if (holding && step >= holdUntil) {
            holding = false;
            redis.holdRefunds(false);
        }
        log.addLast("#" + step + " +" + (now() - ScriptedRedisGateway.START_NANOS) / 1000 + "us " + what + calls.takeNotes());
        while (log.size() > LOG_STEPS) {
            log.removeFirst();
        }
        if (!violations.isEmpty()) {
            throw new AssertionError("Quota lease model check of " + rule + " on " + nodes.length + " nodes FAILED at step "
                    + step + " of " + config.steps() + ": " + violations.get(0) + "\n  rerun: -Dleases.model.seed="
                    + config.seed() + " -Dleases.model.steps=" + config.steps() + " " + config.switches().asProperties()
                    + "\n  last steps:\n    " + String.join("\n    ", log));
        }
    }

    int step() {
        return step;
    }

    boolean holding() {
        return holding;
    }

    int nodeCount() {
        return nodes.length;
    }
}
