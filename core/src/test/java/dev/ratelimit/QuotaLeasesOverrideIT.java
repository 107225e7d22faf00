package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 37, item 2: a limit lowered while a client holds a quota lease. The lease's unused permits
 * go back as they were taken, under the rule that lent them: the client then has what it would have
 * without leases, never a new burst. The oracle is the same algorithm without leases, fed the same
 * requests. An hour's window keeps gcra from refilling while the test runs; the leases' lives run
 * on a clock the test moves. (A limit override does not apply to token-bucket.)
 */
class QuotaLeasesOverrideIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private RateLimiter limiter(RedisStore store, String policy, Algorithm algorithm, boolean leases) {
        return RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName(policy).localDenyCache(false)
                .leases(leases).rule(Rule.of(algorithm, 1000, Duration.ofHours(1))).clock(nanos::get).build();
    }

    /** Admits the client until the first denial: how many. */
    private int admittedUntilDenied(RateLimiter limiter) {
        int admitted = 0;
        while (limiter.tryAcquire("x").allowed()) {
            admitted++;
            nanos.addAndGet(1_000);
            assertThat(admitted).as("bounded").isLessThan(2000);
        }
        return admitted;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"GCRA", "FIXED_WINDOW", "SLIDING_LOG"})
    void aLoweredLimitTakesBackALeaseAtTheRateItWasLentAt(Algorithm algorithm) {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri())) {
            String policy = "override-" + algorithm.configName();
            RateLimiter plain = limiter(store, policy + "-plain", algorithm, false);
            RateLimiter leasing = limiter(store, policy + "-leasing", algorithm, true);
            for (int i = 0; i < 500; i++) {
                assertThat(plain.tryAcquire("x").allowed()).isTrue();
                assertThat(leasing.tryAcquire("x").allowed()).isTrue();
                nanos.addAndGet(1_000);
            }
            assertThat(leasing.stats().leaseAdmissions()).as("the busy client was lent quota").isPositive();

            plain.overrides().setLimit(100, "test");
            leasing.overrides().setLimit(100, "test");

            int withoutLeases = admittedUntilDenied(plain);
            assertThat(admittedUntilDenied(leasing)).as("as without leases (%d)", withoutLeases)
                    .isEqualTo(withoutLeases);
        }
    }
}
