package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.MigrateParams;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A slot moves from one master to another (CLUSTER SETSLOT IMPORTING / MIGRATING, MIGRATE of its
 * keys a few at a time, SETSLOT NODE) while many threads decide through two limiters: the source
 * answers ASK for keys it no longer holds, the target takes them only after ASKING, and at the end
 * every node answers MOVED. Every decision is Redis' own, and each client is admitted exactly its
 * limit, however its state moved.
 */
class ClusterSlotMigrationIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static final int LIMIT = 40;
    private static final int CLIENTS = 12;

    private static RedisStore store() {
        return RedisStore.connect(RedisSettings.builder("redis://127.0.0.1").timeout(Duration.ofSeconds(1))
                .cluster(Arrays.asList(cluster.seedNodes().split(","))).build());
    }

    private static RateLimiter limiter(RedisStore store, Map<String, String> failures) {
        return RateLimiter.builder(store).keyPrefix(cluster.keyPrefix()).policyName("migration")
                .onRedisFailure(FailurePolicy.ALLOW).localDenyCache(false).listener(new RateLimitListener() {
                    @Override
                    public void onFailure(String policy, String key, RedisFailureException cause) {
                        failures.putIfAbsent(key, String.valueOf(cause));
                    }
                }).rule(Rule.of(Algorithm.SLIDING_LOG, LIMIT, Duration.ofMinutes(10))).build();
    }

    /** Client keys whose hash slot is {@code slot}: their limiter keys all live in it. */
    private static List<String> clientsInSlot(int slot, String prefix, int count) {
        List<String> clients = new ArrayList<>();
        for (int i = 0; clients.size() < count; i++) {
            if (JedisClusterCRC16.getSlot(prefix + i) == slot) {
                clients.add(prefix + i);
            }
        }
        return clients;
    }

    private static Jedis admin(String node) {
        return new Jedis(HostAndPort.from(node));
    }

    @Test
    void aLiveSlotMigrationIsDecidedByRedisExactly() throws Exception {
        int slot = JedisClusterCRC16.getSlot("moving");
        String source = cluster.masterOf("moving");
        String target = cluster.masters().stream().filter(m -> !m.equals(source)).findFirst().orElseThrow();
        // Half the clients have state on the source before the move; the others first appear during it.
        List<String> clients = clientsInSlot(slot, "m-", CLIENTS);
        int early = CLIENTS / 2;
        Map<String, String> failures = new ConcurrentHashMap<>();
        AtomicIntegerArray decided = new AtomicIntegerArray(CLIENTS);
        AtomicIntegerArray admitted = new AtomicIntegerArray(CLIENTS);
        AtomicInteger degraded = new AtomicInteger();
        AtomicInteger total = new AtomicInteger();
        AtomicBoolean lateClients = new AtomicBoolean();
        AtomicBoolean running = new AtomicBoolean(true);

        try (RedisStore nodeA = store(); RedisStore nodeB = store();
                Jedis from = admin(source); Jedis to = admin(target)) {
            RateLimiter[] limiters = {limiter(nodeA, failures), limiter(nodeB, failures)};
            ExecutorService threads = Executors.newFixedThreadPool(8);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int offset = t;
                workers.add(threads.submit(() -> {
                    for (int i = offset; running.get(); i++) {
                        int k = i % (lateClients.get() ? CLIENTS : early);
                        Decision decision = limiters[i % 2].tryAcquire(clients.get(k));
                        decided.incrementAndGet(k);
                        total.incrementAndGet();
                        if (decision.degraded()) {
                            degraded.incrementAndGet();
                        } else if (decision.allowed()) {
                            admitted.incrementAndGet(k);
                        }
                    }
                    return null;
                }));
            }
            try {
                awaitProgress(total, 100);
                to.clusterSetSlotImporting(slot, from.clusterMyId());
                from.clusterSetSlotMigrating(slot, to.clusterMyId());
                lateClients.set(true);
                awaitProgress(total, 300);
                int migrated = 0;
                for (List<String> keys = from.clusterGetKeysInSlot(slot, 2); !keys.isEmpty();
                        keys = from.clusterGetKeysInSlot(slot, 2)) {
                    HostAndPort destination = HostAndPort.from(target);
                    from.migrate(destination.getHost(), destination.getPort(), 5000, new MigrateParams(), keys.toArray(new String[0]));
                    migrated += keys.size();
                    awaitProgress(total, 100);
                }
                for (String master : cluster.masters()) {
                    try (Jedis node = admin(master)) {
                        node.clusterSetSlotNode(slot, to.clusterMyId());
                    }
                }
                // Until every client has been asked well past its limit.
                for (int k = 0; k < CLIENTS; k++) {
                    while (decided.get(k) < 3 * LIMIT) {
                        awaitProgress(total, 50);
                    }
                }
                System.err.println("slot " + slot + " moved " + source + " -> " + target + " with " + migrated
                        + " keys migrated under traffic");
            } finally {
                running.set(false);
                for (Future<?> worker : workers) {
                    worker.get(30, TimeUnit.SECONDS);
                }
                threads.shutdown();
            }
        }

        assertThat(cluster.masterOf("moving")).isEqualTo(target);
        assertThat(failures).as("failures").isEmpty();
        assertThat(degraded.get()).as("decisions left to the policy").isZero();
        for (int k = 0; k < CLIENTS; k++) {
            assertThat(admitted.get(k)).as("admitted for %s of %s decisions", clients.get(k), decided.get(k))
                    .isEqualTo(LIMIT);
        }
        System.err.println("live migration: " + total.get() + " decisions, 0 degraded, each of " + CLIENTS
                + " clients admitted exactly " + LIMIT + "; decisions per client " + decided);
    }

    /** Waits until the traffic has made {@code decisions} more decisions (bounded). */
    private static void awaitProgress(AtomicInteger total, int decisions) throws InterruptedException {
        int goal = total.get() + decisions;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (total.get() < goal) {
            assertThat(System.nanoTime()).as("traffic goes on").isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
