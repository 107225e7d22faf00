package dev.ratelimit;

import dev.ratelimit.EffectiveHistory.Event;
import dev.ratelimit.EffectiveHistory.Kind;
import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import dev.ratelimit.internal.support.RedisKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * One seeded run of the model check of every writer of a client's state (issue 48; GiveBacksModelTest
 * says what and why): 2 or 3 limiter nodes without quota leases on one {@link ScriptedRedisGateway}
 * and its manual clock, clients c0 to c2 (and c3: c0 as a dimension, decided by {@code tryAcquireEach}
 * and reset by {@code resetEach}), and steps ({@link GiveBackSteps}) drawn from a {@link Random} of the
 * seed. What Redis did is heard into the {@link EffectiveHistory} ({@link GiveBackCalls}); after every
 * step {@link GiveBackChecks} holds each client's admissions and state to one place's; the first
 * violation fails the run with the seed, the switches, the last steps and the shortest rerun.
 */
final class GiveBacksModel {
    static final Duration WINDOW = Duration.ofSeconds(1);
    /** c0, c1, c2, and c3: c0's key as the rule's dimension. */
    static final int CLIENTS = 4;
    static final String[] KEYS = {"c0", "c1", "c2"};
    /** How many admissions the model keeps to settle later; past it the oldest is never settled. */
    private static final int HELD_DECISIONS = 24;

    /** @param penalty the rule boxes a client over its limit for 300 ms ({@link Rule#penalty()}) */
    record Config(Algorithm algorithm, boolean penalty, long seed, int steps, GiveBackSwitches switches) {
        String variant() {
            return algorithm.configName() + (penalty ? "+penalty" : "");
        }
    }

    /** What a run did: enough of each to trust that it checked what it says. */
    record Summary(int steps, long admissions, long delayed, long applied, long dropped, long charged, long resets,
            long denials, long statesChecked) {
    }

    /** An admission that may still be settled: its client, the decision, and the event Redis counted for it. */
    record Held(int client, Decision decision, Event event) {
    }

    final Config config;
    final Random random;
    final ScriptedRedisGateway redis = new ScriptedRedisGateway();
    final Rule rule;
    final long[] overrideLimits;
    final boolean denyCache;
    final AdmissionBounds.LimitTimeline limits = new AdmissionBounds.LimitTimeline();
    final EffectiveHistory history = new EffectiveHistory(CLIENTS);
    final GiveBackCalls calls;
    final List<Held> held = new ArrayList<>();
    int holdUntil;
    private final GiveBackChecks checks;
    private final RateLimiter[] nodes;
    private final FailurePolicy[] policies;
    private final String[] redisKeys = new String[CLIENTS];
    private final StepLog log = new StepLog();
    final FlushedDenyCaches flushedDenyCaches;
    private int step;
    private long stepMaxLimit;
    private long denials;

    GiveBacksModel(Config config) {
        this.config = config;
        this.random = new Random(config.seed());
        Algorithm algorithm = config.algorithm();
        // Limits that divide the window in whole microseconds (gcra's tolerance is one window at each).
        Rule.Builder builder = Rule.builder(algorithm, 10, WINDOW).cost(random.nextInt(10) < 7 ? 1 : 2);
        this.rule = (config.penalty() ? builder.penalty(Duration.ofMillis(300)) : builder).build();
        this.overrideLimits = new long[] {5, 8, 10, 16, 20};
        this.denyCache = config.switches().denyCache() != null ? config.switches().denyCache() : random.nextBoolean();
        this.nodes = new RateLimiter[2 + random.nextInt(2)];
        this.policies = new FailurePolicy[nodes.length];
        RedisStore store = TestStores.over(redis);
        for (int n = 0; n < nodes.length; n++) {
            policies[n] = new FailurePolicy[] {FailurePolicy.ALLOW, FailurePolicy.DENY, null}[random.nextInt(3)];
            RateLimiterBuilder node = RateLimiter.builder(store).policyName("model").keyPrefix("g:").rule(rule)
                    .localDenyCache(denyCache).clock(redis::nanoTime);
            nodes[n] = (policies[n] == null ? node : node.onRedisFailure(policies[n])).build();
        }
        Map<String, Integer> clientOf = new HashMap<>();
        for (int c = 0; c < CLIENTS; c++) {
            redisKeys[c] = c < KEYS.length ? nodes[0].redisKeys(KEYS[c]).get(0)
                    : RedisKeys.dimensionKey("g:", "model", rule.name(), KEYS[0]);
            clientOf.put(redisKeys[c], c);
        }
        this.flushedDenyCaches = new FlushedDenyCaches(nodes.length, CLIENTS);
        this.calls = new GiveBackCalls(algorithm.configName(), clientOf, history, redis);
        this.checks = new GiveBackChecks(this, new OnePlace(rule, limits));
        stepMaxLimit = recordLimits();
    }

    Summary run() {
        while (step < config.steps()) {
            act(() -> GiveBackSteps.one(this));
        }
        act(() -> GiveBackSteps.landEverything(this));
        return new Summary(config.steps(), calls.admissions, calls.delayed, calls.applied, calls.dropped, calls.charged,
                calls.resets, denials, checks.statesChecked);
    }

    /** One step: the operation, then every check; a violation fails it with the steps that led there. */
    String act(Supplier<String> operation) {
        if (config.switches().fault() != null && step == config.switches().faultAt()) {
            switch (config.switches().fault()) {
                case "replay" -> redis.faults().replayNextRefund();
                case "life" -> redis.faults().refundIntoCurrentLife();
                default -> redis.faults().ignoreTrims(true);
            }
        }
        String what = operation.get();
        endStep(what);
        step++;
        return what;
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
        return nodes[n];
    }

    String redisKey(int c) {
        return redisKeys[c];
    }

    void advance(long nanos) {
        redis.advance(Duration.ofNanos(nanos));
    }

    /** A request of {@code permits} (c3: the rule's cost, as a dimension) by client {@code c} on node {@code n}. */
    String request(int n, int c, long permits) {
        String what = "c" + c + "@n" + n + (c < KEYS.length ? " x" + permits : " (each)") + " -> ";
        return what + decide(n, c, false, () -> c < KEYS.length ? nodes[n].tryAcquire(KEYS[c], permits)
                : nodes[n].tryAcquireEach(List.of(KEYS[0])));
    }

    /** A request of the rule's cost that may wait up to {@code maxDelayMillis} for its turn. */
    String delayed(int n, int c, long maxDelayMillis) {
        String what = "c" + c + "@n" + n + " x" + rule.cost() + " waiting up to " + maxDelayMillis + "ms -> ";
        return what + decide(n, c, true, () -> nodes[n].tryAcquire(KEYS[c], Duration.ofMillis(maxDelayMillis)));
    }

    /**
     * Requests of several clients at once ({@code tryAcquireAll}), each decided alone as its own
     * tryAcquire would be, in one batch of calls.
     */
    String batch(int n, Map<String, Long> permitsByKey) {
        calls.heard.clear();
        Map<String, Decision> decisions;
        int[] clients = permitsByKey.keySet().stream().mapToInt(key -> key.charAt(1) - '0').toArray();
        long cachedBefore = nodes[n].stats().localCacheDenials();
        try {
            decisions = nodes[n].tryAcquireAll(permitsByKey);
        } catch (RedisFailureException e) {
            return "a batch on n" + n + " of " + permitsByKey + " -> threw (no failure policy)";
        } finally {
            checkNoDenialRemembered(n, cachedBefore, clients);
        }
        StringBuilder what = new StringBuilder("a batch on n" + n + ":");
        decisions.forEach((key, decision) -> what.append("\n      ").append(key).append(" x").append(permitsByKey.get(key))
                .append(" -> ").append(admitted(n, key.charAt(1) - '0', false, decision)));
        return what.toString();
    }

    private String decide(int n, int c, boolean delaying, Supplier<Decision> call) {
        calls.heard.clear();
        long cachedBefore = nodes[n].stats().localCacheDenials();
        try {
            return admitted(n, c, delaying, call.get());
        } catch (RedisFailureException e) {
            return "threw (no failure policy)";
        } finally {
            checkNoDenialRemembered(n, cachedBefore, c);
        }
    }

    /** Holds node {@code n}'s decision of {@code clients} to {@link FlushedDenyCaches}. */
    private void checkNoDenialRemembered(int n, long cachedBefore, int... clients) {
        String violation = flushedDenyCaches.decided(n, nodes[n].stats().localCacheDenials() - cachedBefore, clients);
        check(violation == null, () -> violation);
    }

    /** The last event Redis counted for client {@code c} in this step's call, or null. */
    private Event lastHeard(int c) {
        Event event = null;
        for (Event each : calls.heard) {
            event = each.client == c ? each : event;
        }
        return event;
    }

    /** Checks an admission against what Redis counted in the call, and keeps it to settle later. */
    private String admitted(int n, int c, boolean delaying, Decision decision) {
        Event event = lastHeard(c);
        if (!decision.allowed() || decision.degraded()) {
            denials += decision.allowed() ? 0 : 1;
            return decision.toString();
        }
        check(event != null, () -> "node n" + n + " admitted c" + c + " though Redis counted nothing: " + decision);
        if (event != null) {
            boolean delayedEvent = event.kind == Kind.DELAYED;
            check(decision.delayed() == delayedEvent && (!delaying || !delayedEvent
                    || event.nanos == now() / 1000 * 1000 + decision.delay().toNanos()), () -> "node n" + n + "'s decision for c"
                    + c + " (" + decision + ") is not what Redis counted: " + event);
            if (c < KEYS.length) {
                if (held.size() == HELD_DECISIONS) {
                    held.remove(0);
                }
                held.add(new Held(c, decision, event));
            }
        }
        return decision + (event == null ? "" : " [" + event + "]");
    }

    /** Settles a held admission on node {@code n}: a refund ({@code usage} < 0) or an after-charge at {@code usage}. */
    String settle(int index, int n, long usage) {
        Held h = held.remove(index);
        String what = (usage < 0 ? "refund of c" : "charge at " + usage + " of c") + h.client + "'s " + h.event + " (epoch "
                + h.event.epoch + ") on n" + n + " -> ";
        if (!config.switches().staleGiveBacks() && h.event.epoch != history.epoch[h.client]) {
            return what + "not sent: an earlier epoch's (staleGiveBacks off)";
        }
        calls.target = h.event;
        try {
            return what + (usage < 0 ? nodes[n].refund(KEYS[h.client], h.decision)
                    : nodes[n].charge(KEYS[h.client], h.decision, usage));
        } finally {
            calls.target = null;
        }
    }

    /** A live limit override written on node {@code n}, or the overrides cleared (one time in three). */
    String override(int n) {
        stepMaxLimit = Math.max(stepMaxLimit, recordLimits());
        try {
            if (random.nextInt(3) == 0) {
                nodes[n].overrides().clear("model");
                return "n" + n + " clears the overrides";
            }
            long to = overrideLimits[random.nextInt(overrideLimits.length)];
            nodes[n].overrides().setLimit(to, "model");
            return "n" + n + " sets the limit to " + to;
        } catch (RedisFailureException e) {
            return "n" + n + " cannot write the overrides";
        }
    }

    /** Records a violation unless {@code holds}; its text, built only then, names what broke. */
    void check(boolean holds, Supplier<String> violation) {
        log.check(holds, violation);
    }

    /** The largest limit the nodes apply now. */
    private long recordLimits() {
        long max = 0;
        for (RateLimiter node : nodes) {
            max = Math.max(max, node.effectiveRules().get(0).limit());
        }
        return max;
    }

    private void endStep(String what) {
        long after = recordLimits();
        limits.record(now(), Math.max(stepMaxLimit, after));
        limits.record(now(), after);
        stepMaxLimit = after;
        checks.afterStep();
        log.step("#" + step + " +" + (now() - ScriptedRedisGateway.START_NANOS) / 1000 + "us " + what + calls.takeNotes()
                + (after != rule.limit() ? " [limit " + after + "]" : ""), () -> "Give-back model check of " + rule + " ("
                + config.variant() + ") on " + nodes.length + " nodes " + Arrays.toString(policies) + ", deny cache "
                + (denyCache ? "on" : "off") + ", seed " + config.seed() + ", FAILED at step " + step + ": %s\n  switches: "
                + config.switches().asProperties() + "\n  rerun: " + GiveBacksModelTest.rerun(config, step + 1));
    }
}
