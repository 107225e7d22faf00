package dev.ratelimit.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.testing.RedisServerExtension;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The meters as Prometheus scrapes them, from decisions of a real Redis (and of a dead one). */
class RateLimiterMetricsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Rule TWO_PER_MINUTE = Rule.of(Algorithm.SLIDING_LOG, 2, Duration.ofMinutes(1));

    @Test
    void decisionsAreCountedOncePerOutcomeWithLatencyAndBreakerState() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect(redis.uri())) {
            RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop");
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("api")
                    .rule(TWO_PER_MINUTE).listener(metrics).build();
            for (int i = 0; i < 4; i++) {
                limiter.tryAcquire("client");
            }

            String scrape = prometheus.scrape();
            assertThat(scrape)
                    .contains("ratelimit_decisions_total{outcome=\"allowed\",policy=\"api\",webapp=\"/shop\"} 2")
                    .contains("ratelimit_decisions_total{outcome=\"denied\",policy=\"api\",webapp=\"/shop\"} 1")
                    .as("the second denial came from the local deny cache, counted there only")
                    .contains("ratelimit_decisions_total{outcome=\"cached_denial\",policy=\"api\",webapp=\"/shop\"} 1")
                    .contains("ratelimit_decisions_total{outcome=\"degraded\",policy=\"api\",webapp=\"/shop\"} 0")
                    .as("three calls reached Redis")
                    .contains("ratelimit_redis_latency_seconds_count{policy=\"api\",webapp=\"/shop\"} 3")
                    .contains("ratelimit_breaker_state{policy=\"api\",webapp=\"/shop\"} 0");

            metrics.close();
            assertThat(prometheus.scrape()).as("closing removes every meter").doesNotContain("ratelimit_");
        }
    }

    @Test
    void refusalsByThePenaltyBoxAreCountedApartAndAsDenied() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect(redis.uri());
                RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop")) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("boxed")
                    .rule(Rule.builder(Algorithm.SLIDING_LOG, 2, Duration.ofMinutes(1)).penalty(Duration.ofMinutes(5))
                            .build()).listener(metrics).build();
            for (int i = 0; i < 4; i++) {
                limiter.tryAcquire("client");
            }
            assertThat(prometheus.scrape()).as("the denial that boxed the client, and the deny cache's in the box")
                    .contains("ratelimit_penalty_denials_total{policy=\"boxed\",webapp=\"/shop\"} 2.0")
                    .contains("ratelimit_decisions_total{outcome=\"denied\",policy=\"boxed\",webapp=\"/shop\"} 1")
                    .contains("ratelimit_decisions_total{outcome=\"cached_denial\",policy=\"boxed\",webapp=\"/shop\"} 1");
        }
    }

    @Test
    void delayedAdmissionsAreCountedApartAndAsAllowed() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect(redis.uri());
                RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop")) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("shaped")
                    .rule(Rule.of(Algorithm.GCRA, 1, Duration.ofMinutes(1))).listener(metrics).build();
            limiter.tryAcquire("client");
            limiter.tryAcquire("client", Duration.ofMinutes(1));
            assertThat(prometheus.scrape()).as("the one that waits for its turn")
                    .contains("ratelimit_delayed_admissions_total{policy=\"shaped\",webapp=\"/shop\"} 1.0")
                    .contains("ratelimit_decisions_total{outcome=\"allowed\",policy=\"shaped\",webapp=\"/shop\"} 2");
        }
    }

    @Test
    void afterChargesAndTheirPermitsAreCounted() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect(redis.uri());
                RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop")) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("export")
                    .rule(Rule.of(Algorithm.GCRA, 100, Duration.ofHours(1))).listener(metrics).build();
            limiter.charge("client", limiter.tryAcquire("client"), 50);
            limiter.charge("client", limiter.tryAcquire("client"), 0);
            assertThat(prometheus.scrape()).as("one charge of 49 past the 1 taken; a refund is no charge")
                    .contains("ratelimit_after_charges_total{policy=\"export\",webapp=\"/shop\"} 1.0")
                    .contains("ratelimit_after_charged_permits_total{policy=\"export\",webapp=\"/shop\"} 49.0");
        }
    }

    @Test
    void admissionsFromQuotaLeasesAreCountedApartAndAsAllowed() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect(redis.uri());
                RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop")) {
            RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("busy")
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 1000, Duration.ofHours(1))).leases(true).listener(metrics)
                    .build();
            for (int i = 0; i < 20; i++) {
                limiter.tryAcquire("client");
            }

            long fromLeases = limiter.stats().leaseAdmissions();
            assertThat(fromLeases).as("a busy client is lent permits after its first requests").isPositive();
            assertThat(prometheus.scrape())
                    .contains("ratelimit_lease_admissions_total{policy=\"busy\",webapp=\"/shop\"} " + fromLeases + ".0")
                    .contains("ratelimit_decisions_total{outcome=\"allowed\",policy=\"busy\",webapp=\"/shop\"} 20")
                    .as("only what the leases did not admit reached Redis")
                    .contains("ratelimit_redis_latency_seconds_count{policy=\"busy\",webapp=\"/shop\"} "
                            + (20 - fromLeases));
            limiter.giveBackLeases();
        }
    }

    @Test
    void aDeadRedisCountsDegradedDecisionsAndOpensTheBreakerGauge() throws Exception {
        int deadPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            deadPort = socket.getLocalPort();
        }
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RedisStore store = RedisStore.connect("redis://127.0.0.1:" + deadPort);
                RateLimiterMetrics metrics = new RateLimiterMetrics(prometheus, "/shop")) {
            RateLimiter limiter = RateLimiter.builder(store).policyName("down").rule(TWO_PER_MINUTE)
                    .onRedisFailure(FailurePolicy.ALLOW).listener(metrics).build();
            for (int i = 0; i < 5; i++) {
                limiter.tryAcquire("client");
            }

            assertThat(prometheus.scrape())
                    .contains("ratelimit_decisions_total{outcome=\"degraded\",policy=\"down\",webapp=\"/shop\"} 5")
                    .contains("ratelimit_decisions_total{outcome=\"allowed\",policy=\"down\",webapp=\"/shop\"} 0")
                    .contains("ratelimit_redis_latency_seconds_count{policy=\"down\",webapp=\"/shop\"} 0")
                    .contains("ratelimit_breaker_state{policy=\"down\",webapp=\"/shop\"} 2");
        }
    }

    @Test
    void metricsMicrometerBindsEachPolicyToTheGlobalRegistryUntilItCloses() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Metrics.addRegistry(prometheus);
        RedisStoreRegistry stores = new RedisStoreRegistry();
        try {
            HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName("orders", "the filter-name")
                    .parse(Map.of("redisUri", redis.uri(), "keyPrefix", redis.keyPrefix(), "limit", "1",
                            "window", "1m", "metrics", "micrometer", "jmx", "false"));
            assertThat(policy.toString()).contains("metrics micrometer");
            PolicyRuntime runtime = PolicyRuntime.start(policy, stores, "/app");
            runtime.limiter().tryAcquire("client");
            runtime.limiter().tryAcquire("client");

            assertThat(prometheus.scrape())
                    .contains("ratelimit_decisions_total{outcome=\"allowed\",policy=\"orders\",webapp=\"/app\"} 1")
                    .contains("ratelimit_decisions_total{outcome=\"denied\",policy=\"orders\",webapp=\"/app\"} 1")
                    .contains("ratelimit_breaker_state{policy=\"orders\",webapp=\"/app\"} 0");

            runtime.close();
            assertThat(prometheus.scrape()).as("a stopped policy leaves no meter").doesNotContain("ratelimit_");
        } finally {
            Metrics.removeRegistry(prometheus);
            stores.closeAll();
        }
    }
}
