package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * One of three Cluster masters dies while decisions flow: only the decisions whose keys live on its
 * slots are left to the failure policy (each node has its own circuit breaker); the other two
 * masters go on deciding every request exactly. Once its replica is promoted, its slots are decided
 * by Redis again.
 */
class ClusterNodeHealthIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static final int LIMIT = 30;
    private static final int KEYS_PER_MASTER = 4;

    private static RedisStore store() {
        return RedisStore.connect(RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofMillis(300))
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build());
    }

    /** The first failure per client, to say why if a healthy master's client was degraded. */
    private static final Map<String, String> FAILURES = new ConcurrentHashMap<>();

    private static RateLimiter limiter(RedisStore store, FailurePolicy onFailure) {
        return RateLimiter.builder(store).keyPrefix(cluster.keyPrefix()).policyName("node-health")
                .onRedisFailure(onFailure).localDenyCache(false).listener(new RateLimitListener() {
                    @Override
                    public void onFailure(String policy, String key, RedisFailureException cause) {
                        FAILURES.putIfAbsent(key, String.valueOf(cause) + " / " + cause.getCause());
                    }
                })
                .rule(Rule.of(Algorithm.SLIDING_LOG, LIMIT, Duration.ofMinutes(10))).build();
    }

    /** Client keys grouped by the master serving their slot, {@code KEYS_PER_MASTER + 1} each (one spare). */
    private static Map<String, List<String>> keysByMaster() {
        Map<String, List<String>> byMaster = new LinkedHashMap<>();
        for (String master : cluster.masters()) {
            byMaster.put(master, new ArrayList<>());
        }
        for (int i = 0; byMaster.values().stream().anyMatch(keys -> keys.size() <= KEYS_PER_MASTER); i++) {
            String key = "node-" + i;
            List<String> keys = byMaster.get(cluster.masterOf(key));
            if (keys.size() <= KEYS_PER_MASTER) {
                keys.add(key);
            }
        }
        return byMaster;
    }

    /** Peeks (which takes nothing) at a client until Redis answers rather than the policy; bounded. */
    private static Duration untilRedisDecides(RateLimiter limiter, String key) throws InterruptedException {
        long start = System.nanoTime();
        while (limiter.peek(key).degraded() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20)) {
            Thread.sleep(20);
        }
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * With Redis' default {@code cluster-require-full-coverage yes}, every node answers CLUSTERDOWN
     * from the moment the dead master is flagged failed until its replica is promoted: Redis itself
     * then refuses all decisions, whatever the client does. Deployments that want the healthy
     * masters to go on deciding turn it off, as here.
     */
    @BeforeAll
    static void servePartialCoverage() {
        for (String node : cluster.nodes()) {
            try (Jedis admin = new Jedis(HostAndPort.from(node))) {
                admin.configSet("cluster-require-full-coverage", "no");
            }
        }
    }

    @Test
    void aDeadMasterLeavesOnlyItsOwnSlotsToThePolicyAndTheOthersStayExact() throws Exception {
        Map<String, List<String>> byMaster = keysByMaster();
        String victim = cluster.masters().get(0);
        List<String> keys = new ArrayList<>();
        for (List<String> ofMaster : byMaster.values()) {
            keys.addAll(ofMaster.subList(0, KEYS_PER_MASTER));
        }
        String spareOnVictim = byMaster.get(victim).get(KEYS_PER_MASTER);

        try (RedisStore nodeA = store(); RedisStore nodeB = store()) {
            RateLimiter limiter = limiter(nodeA, FailurePolicy.ALLOW);
            AtomicIntegerArray decided = new AtomicIntegerArray(keys.size());
            AtomicIntegerArray admitted = new AtomicIntegerArray(keys.size());
            AtomicIntegerArray degraded = new AtomicIntegerArray(keys.size());
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService threads = Executors.newFixedThreadPool(8);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int offset = t;
                workers.add(threads.submit(() -> {
                    for (int i = offset; running.get(); i++) {
                        int k = i % keys.size();
                        Decision decision = limiter.tryAcquire(keys.get(k));
                        decided.incrementAndGet(k);
                        if (decision.degraded()) {
                            degraded.incrementAndGet(k);
                        } else if (decision.allowed()) {
                            admitted.incrementAndGet(k);
                        }
                    }
                    return null;
                }));
            }
            String killed;
            try {
                killed = cluster.killMaster(byMaster.get(victim).get(0));
            } finally {
                running.set(false);
                for (Future<?> worker : workers) {
                    worker.get(30, TimeUnit.SECONDS);
                }
                threads.shutdown();
            }
            assertThat(killed).isEqualTo(victim);

            int victimDegraded = 0;
            for (int k = 0; k < keys.size(); k++) {
                boolean onVictim = byMaster.get(victim).contains(keys.get(k));
                assertThat(decided.get(k)).as("decisions for %s", keys.get(k)).isGreaterThan(LIMIT);
                if (onVictim) {
                    victimDegraded += degraded.get(k);
                } else {
                    assertThat(degraded.get(k)).as("left to the policy for %s on a healthy master; first failures: %s",
                            keys.get(k), FAILURES).isZero();
                    assertThat(admitted.get(k)).as("admitted for %s on a healthy master", keys.get(k)).isEqualTo(LIMIT);
                }
            }
            assertThat(victimDegraded).as("decisions on the dead master's slots left to the policy").isPositive();
            System.err.println("dead master " + victim + ": " + victimDegraded + " decisions on its slots degraded; "
                    + "healthy masters: 0 degraded, every key admitted exactly " + LIMIT + "; decisions per key " + decided);

            assertThat(cluster.masterOf(spareOnVictim)).as("its replica serves the slot now").isNotEqualTo(victim);
            assertThat(untilRedisDecides(limiter, spareOnVictim)).as("the promoted replica decides")
                    .isLessThan(Duration.ofSeconds(10));
            FailoverSupport.assertExact(limiter(nodeA, null), limiter(nodeB, null), spareOnVictim, LIMIT);
            assertThat(limiter.stats().circuitBreakerState()).as("the dead node's breaker is forgotten").isEqualTo("CLOSED");
            cluster.restartNode(killed);
        }
    }
}
