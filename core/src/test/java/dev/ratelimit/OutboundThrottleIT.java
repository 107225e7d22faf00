package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.scripts.DecisionAccess;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * acquire() as a client-side throttle: nodes calling a partner API that allows 16 calls per
 * window, shared through Redis (the README's example, with a shorter window).
 */
class OutboundThrottleIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** The README's partner client, as written there except for the window and key prefix. */
    static final class PartnerClient {
        private final RateLimiter partnerQuota;
        private final AtomicInteger calls;
        private final List<Long> admittedAt;

        PartnerClient(RedisStore redis, Duration window, AtomicInteger calls, List<Long> admittedAt) {
            this.partnerQuota = RateLimiter.builder(redis)
                    .keyPrefix(OutboundThrottleIT.redis.keyPrefix())
                    .policyName("partner-api")
                    .rule(Rule.of(Algorithm.SLIDING_LOG, 16, window))     // the partner's own limit
                    .build();
            this.calls = calls;
            this.admittedAt = admittedAt;
        }

        /** Calls the partner, waiting for a permit up to 30 s; false if none came in time. */
        boolean callPartner() throws InterruptedException {
            Decision permit = partnerQuota.acquire("partner", 1, Duration.ofSeconds(30));
            if (!permit.allowed()) {
                return false;
            }
            calls.incrementAndGet();   // here the real HTTP call to the partner would go
            // (the test's own record: when Redis admitted it, the sliding log's entry in microseconds)
            admittedAt.add(DecisionAccess.get().receipt(permit).stamp(0));
            return true;
        }
    }

    @Test
    void twoNodesTogetherNeverCallThePartnerMoreThanItAllows() throws Exception {
        Duration window = Duration.ofMillis(1000);
        AtomicInteger calls = new AtomicInteger();
        List<Long> admittedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (RedisStore nodeA = RedisStoreExtension.connect(redis.uri()); RedisStore nodeB = RedisStoreExtension.connect(redis.uri())) {
            PartnerClient onA = new PartnerClient(nodeA, window, calls, admittedAt);
            PartnerClient onB = new PartnerClient(nodeB, window, calls, admittedAt);
            ExecutorService tasks = Executors.newFixedThreadPool(8);
            List<Future<Boolean>> done = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                PartnerClient node = i % 2 == 0 ? onA : onB;
                done.add(tasks.submit(node::callPartner));
            }
            for (Future<Boolean> task : done) {
                assertThat(task.get(60, TimeUnit.SECONDS)).as("every task got a permit in time").isTrue();
            }
            tasks.shutdown();
        }
        assertThat(calls.get()).isEqualTo(40);
        // 40 calls at 16 per window need more than two windows, and never more than 16 in any window.
        // The times are Redis' own, each admission's entry in the sliding log: a thread's stopwatch,
        // read after acquire() returned, would add its scheduling on a busy machine to the spacing.
        long windowMicros = TimeUnit.MILLISECONDS.toMicros(window.toMillis());
        List<Long> sorted = new ArrayList<>(admittedAt);
        sorted.sort(null);
        assertThat(sorted.get(39) - sorted.get(0)).as("spread over the windows").isGreaterThanOrEqualTo(2 * windowMicros);
        for (int i = 0; i + 16 < sorted.size(); i++) {
            assertThat(sorted.get(i + 16) - sorted.get(i)).as("calls %d and %d are a window apart", i, i + 16)
                    .isGreaterThanOrEqualTo(windowMicros);
        }
    }
}
