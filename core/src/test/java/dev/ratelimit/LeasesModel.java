package dev.ratelimit;

import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * One seeded run of the model check of quota leases (issue 37; QuotaLeasesModelTest says what and
 * why): leasing nodes on one {@link ScriptedRedisGateway} and one manual clock, three clients, and
 * steps ({@link ModelSteps}) drawn from a {@link Random} of the seed, or given one by one by a test
 * ({@link #act}). After every step each admission is checked against {@link AdmissionBounds} and fed
 * to the {@link ModelOracle}, and Redis' state is checked ({@link ModelChecks}); the first violation
 * fails the run with the seed, the switches and the last steps.
 */
final class LeasesModel {
    static final Duration WINDOW = Duration.ofSeconds(1);
    /** A lease's life for this window: a tenth of it. */
    static final long LIFE_NANOS = WINDOW.toNanos() / 10;
    static final int CLIENTS = 3;
    private static final String[] KEYS = {"c0", "c1", "c2"};
    /** How many of the last steps a failure shows: {@code -Dleases.model.log}, 30 unless set. */
    private static final int LOG_STEPS = Integer.getInteger("leases.model.log", 30);

    /**
     * @param nodes how many nodes, each throwing Redis failures (no failure policy); 0 for a seeded 2 to 4,
     *     each with a seeded policy (allow, deny or none)
     */
    record Config(Algorithm algorithm, long seed, int steps, ModelSwitches switches, int nodes) {
    }

    /** What a run did: enough of each to trust that it checked what it says. */
    record Summary(int steps, long redisAdmissions, long leaseAdmissions, long grants, long denials,
            int livenessChecked, int livenessSkipped, long resets, long cacheDenials) {
    }

    /** One node: its limiter and, per client, the lease it holds: its epoch (-1: none) and its grant's call. */
    private static final class Node {
        final RateLimiter limiter;
        final FailurePolicy policy;
        final int[] leaseEpoch = {-1, -1, -1};
        final long[] leaseSeq = new long[CLIENTS];
        /** Per client, leases granted before this call were dropped by the node's own reset of it. */
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
    final AdmissionBounds bounds;
    final ModelCalls calls;
    final long[] overrideLimits;
    private final AdmissionBounds.LimitTimeline limits = new AdmissionBounds.LimitTimeline();
    private final ModelChecks checks = new ModelChecks(this, CLIENTS);
    private final Node[] nodes;
    private final RedisStore store = TestStores.over(redis);
    private final Deque<String> log = new ArrayDeque<>();
    private final List<AdmissionBounds.Admission> leased = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private int step;
    int holdUntil;
    long lastResetAt = Long.MIN_VALUE / 2;
    long limitsChangedAt;
    private String limitsSeen = "";
    /** Whether the nodes' limits changed in this step, for its log line. */
    private boolean limitsChanged;
    private long stepMaxLimit;
    private long redisAdmissions;
    private long leaseAdmissions;
    private long denials;
    private long cacheDenials;

    LeasesModel(Config config) {
        this.config = config;
        this.random = new Random(config.seed());
        Algorithm algorithm = config.algorithm();
        boolean bucket = algorithm == Algorithm.TOKEN_BUCKET || algorithm == Algorithm.GCRA;
        // Limits that divide the window in whole microseconds (see AdmissionBounds); the buckets' small, so
        // that a lease's life (how much later leased permits may count) is a permit or two of their interval.
        this.rule = Rule.of(algorithm, bucket ? 16 : 40, WINDOW);
        this.overrideLimits = bucket ? new long[] {8, 10, 16, 20, 25} : new long[] {16, 25, 40, 50, 80};
        this.oracle = new ModelOracle(rule);
        this.bounds = new AdmissionBounds(rule, limits);
        this.nodes = new Node[config.nodes() > 0 ? config.nodes() : 2 + random.nextInt(3)];
        Map<String, Integer> clientOf = new HashMap<>();
        this.calls = new ModelCalls(algorithm.configName(), clientOf, CLIENTS, nodes.length, redis);
        for (int n = 0; n < nodes.length; n++) {
            nodes[n] = newNode();
        }
        for (int c = 0; c < CLIENTS; c++) {
            clientOf.put(redisKeys(c).get(0), c);
        }
        stepMaxLimit = recordLimits();
    }

    private Node newNode() {
        FailurePolicy policy = config.nodes() > 0 ? null
                : new FailurePolicy[] {FailurePolicy.ALLOW, FailurePolicy.ALLOW, FailurePolicy.DENY, null}[random.nextInt(4)];
        RateLimiterBuilder builder = RateLimiter.builder(store).policyName("model").keyPrefix("m:").rule(rule)
                .leases(true).localDenyCache(config.switches().denyCache()).clock(redis::nanoTime);
        return new Node((policy == null ? builder : builder.onRedisFailure(policy)).build(), policy);
    }

    Summary run() {
        while (step < config.steps()) {
            if (config.switches().doubleGiveBack() && step == config.switches().doubleGiveBackAfter()) {
                redis.faults().replayNextRefund();
            }
            act(() -> ModelSteps.one(this));
        }
        act(checks::settle);
        return new Summary(config.steps(), redisAdmissions, leaseAdmissions, calls.grants, denials, checks.livenessChecked,
                checks.livenessSkipped, calls.resetsSeen, cacheDenials);
    }

    /** One step: the operation, then every check; a violation fails it with the steps that led there. */
    String act(Supplier<String> operation) {
        String what = operation.get();
        endStep(what);
        step++;
        return what;
    }

    /** Ends what is pending and checks liveness ({@link ModelChecks#settle}), as a step of its own. */
    String settle() {
        return checks.settle();
    }

    long now() {
        return redis.nanoTime();
    }

    int step() {
        return step;
    }

    int nodeCount() {
        return nodes.length;
    }

    RateLimiter limiter(int n) {
        return nodes[n].limiter;
    }

    List<String> redisKeys(int c) {
        return nodes[0].limiter.redisKeys(KEYS[c]);
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
        if (decision.allowed() && after.leaseAdmissions() > before.leaseAdmissions()) {
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
        boolean cached = after.localCacheDenials() > before.localCacheDenials();
        check(redisDenied || cached, "node n" + n + " denied c" + c + " neither from Redis nor its deny cache: " + decision);
        if (cached) {
            cacheDenials++;
            checks.cachedDenial(n, c, permits);
            return what + "denied from the deny cache";
        }
        return what + "denied by Redis, retry after " + decision.retryAfter().toNanos() / 1000 + "us";
    }

    void giveBack(int n) {
        ModelCalls.Frame frame = calls.enter(n);
        try {
            nodes[n].limiter.giveBackLeases();
        } finally {
            calls.leave(frame);
        }
    }

    /** A live limit override written on node {@code n} (cleared one time in three); 0: one drawn from the set. */
    String override(int n, long limit) {
        if (rule.algorithm() == Algorithm.TOKEN_BUCKET) {
            return "no override: token-bucket refuses them";
        }
        // A call in flight may have applied a limit within this step that this override replaces at the
        // same instant: the bounds must know it was in force.
        stepMaxLimit = Math.max(stepMaxLimit, recordLimits());
        ModelCalls.Frame frame = calls.enter(n);
        try {
            if (limit == 0 && random.nextInt(3) == 0) {
                nodes[n].limiter.overrides().clear("model");
                return "n" + n + " clears the overrides";
            }
            long to = limit > 0 ? limit : overrideLimits[random.nextInt(overrideLimits.length)];
            nodes[n].limiter.overrides().setLimit(to, "model");
            return "n" + n + " sets the limit to " + to;
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

    /**
     * The test kit's reset ({@code TestOnlyRedis.reset}): every key gone and every node told at once
     * ({@code RedisGateway.whenFlushed}), dropping its leases without giving them back (there is nothing
     * left to give back to), forgetting its remembered denials and reading the overrides again; the kit's
     * clock moves 20 ms with it (GiveBackResets.flush). Every client's next epoch.
     */
    String flush() {
        for (Node node : nodes) {
            Arrays.fill(node.forgotBefore, calls.seq);
        }
        Arrays.fill(calls.droppedBefore, calls.seq);
        calls.flushing = true;
        try {
            redis.flush();
        } finally {
            calls.flushing = false;
        }
        calls.flushed();
        // A request in flight may have been admitted before the flush: fed at its instant, before the clock moves.
        feedAdmissions();
        advance(GiveBackResets.RESTART_NANOS);
        return "the test kit resets Redis: every key gone, every node told (20 ms pass)";
    }

    /** Node {@code n} stops (giving back its leases) or is lost (keeping them), and a new one starts. */
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

    void check(boolean holds, String violation) {
        if (!holds) {
            violations.add(violation);
        }
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
            limitsChanged = true;
        }
        return max;
    }

    /** Checks the admissions since the last were fed against the bounds and feeds them to the oracle, at their instant. */
    private void feedAdmissions() {
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
    }

    /** Records the limits in force, checks the step's admissions and Redis' state, and fails on a violation. */
    private void endStep(String what) {
        long after = recordLimits();
        limits.record(now(), Math.max(stepMaxLimit, after));
        limits.record(now(), after);
        stepMaxLimit = after;
        feedAdmissions();
        checks.states();
        log.addLast("#" + step + " +" + (now() - ScriptedRedisGateway.START_NANOS) / 1000 + "us " + what
                + (limitsChanged && step > 0 ? " [limits now " + limitsSeen + "]" : "") + calls.takeNotes());
        limitsChanged = false;
        while (log.size() > LOG_STEPS) {
            log.removeFirst();
        }
        if (!violations.isEmpty()) {
            String rerun = config.steps() == 0 ? "a scripted scenario (" + config.switches().asProperties() + ")"
                    : "-Dleases.model.seed=" + config.seed() + " -Dleases.model.steps=" + config.steps() + " "
                    + config.switches().asProperties();
            throw new AssertionError("Quota lease model check of " + rule + " on " + nodes.length + " nodes FAILED at step "
                    + step + ": " + violations.get(0) + "\n  rerun: " + rerun + "\n  last steps:\n    "
                    + String.join("\n    ", log));
        }
    }
}
