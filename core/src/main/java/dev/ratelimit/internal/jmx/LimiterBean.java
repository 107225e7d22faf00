package dev.ratelimit.internal.jmx;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.http.settings.Settings;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * One policy's MXBean: its limiter's stats and overrides as attributes, its clients as operations.
 * {@link RateLimiterJmx#register} publishes it.
 */
final class LimiterBean implements RateLimiterMXBean {
    private final RateLimiter limiter;
    private final String configuration;
    private final boolean enforce;
    private final ClientOperations clients;

    LimiterBean(RateLimiter limiter, String configuration, boolean enforce, ClientOperations clients) {
        this.limiter = limiter;
        this.configuration = configuration;
        this.enforce = enforce;
        this.clients = clients;
    }

    @Override
    public String peekClient(String value) {
        return ClientOperations.describe(overRedis(() -> clients.peek(value)));
    }

    @Override
    public String resetClient(String value) {
        return "reset in " + overRedis(() -> clients.reset(value, origin()));
    }

    @Override
    public String getPolicyName() {
        return limiter.policyName();
    }

    @Override
    public long getAllowed() {
        return limiter.stats().allowed();
    }

    @Override
    public long getDenied() {
        return limiter.stats().denied();
    }

    @Override
    public long getDegraded() {
        return limiter.stats().degraded();
    }

    @Override
    public long getLocalCacheDenials() {
        return limiter.stats().localCacheDenials();
    }

    @Override
    public long getLeaseAdmissions() {
        return limiter.stats().leaseAdmissions();
    }

    @Override
    public long getPenalties() {
        return limiter.stats().penalties();
    }

    @Override
    public long getPenaltyDenials() {
        return limiter.stats().penaltyDenials();
    }

    @Override
    public long getDelayedAdmissions() {
        return limiter.stats().delayedAdmissions();
    }

    @Override
    public long getAfterCharges() {
        return limiter.stats().afterCharges();
    }

    @Override
    public long getPermitsCharged() {
        return limiter.stats().permitsCharged();
    }

    @Override
    public long getChargeFailures() {
        return limiter.stats().chargeFailures();
    }

    @Override
    public long getRefundsKept() {
        return limiter.stats().refundsKept();
    }

    @Override
    public long getRedisErrors() {
        return limiter.stats().redisErrors();
    }

    @Override
    public long getRedisRefusals() {
        return limiter.stats().redisRefusals();
    }

    @Override
    public String getRedisRefusal() {
        return Objects.toString(limiter.stats().redisRefusal(), "");
    }

    @Override
    public String getRedisEviction() {
        return Objects.toString(limiter.stats().redisEviction(), "");
    }

    @Override
    public long getRedisEvictedKeys() {
        return limiter.stats().redisEvictedKeys();
    }

    @Override
    public String getRedisMaxmemoryPolicy() {
        return limiter.stats().redisMaxmemoryPolicy();
    }

    @Override
    public String getRedisServer() {
        return limiter.stats().redisServer();
    }

    @Override
    public long getRedisLatencyP50Micros() {
        return limiter.stats().redisLatencyP50Micros();
    }

    @Override
    public long getRedisLatencyP99Micros() {
        return limiter.stats().redisLatencyP99Micros();
    }

    @Override
    public long getRedisLatencyP90Micros() {
        return limiter.stats().redisLatencyP90Micros();
    }

    @Override
    public long getRedisLatencyMaxMicros() {
        return limiter.stats().redisLatencyMaxMicros();
    }

    @Override
    public String getCircuitBreakerState() {
        return limiter.stats().circuitBreakerState();
    }

    @Override
    public String getConfiguration() {
        return configuration;
    }

    @Override
    public long getLimitOverride() {
        return limiter.overrides().limit();
    }

    @Override
    public void setLimitOverride(long limit) {
        // The settings' own parser first, so the message is web.xml's ("limit must be a whole number ...").
        Settings.LIMIT.parse(Long.toString(limit));
        overRedis(() -> {
            limiter.overrides().setLimit(limit, origin());
            return null;
        });
    }

    @Override
    public Boolean getEnforceOverride() {
        return limiter.overrides().enforce();
    }

    @Override
    public void setEnforceOverride(Boolean enforce) {
        boolean parsed = Settings.ENFORCE.parse(String.valueOf(enforce));
        overRedis(() -> {
            limiter.overrides().setEnforce(parsed, origin());
            return null;
        });
    }

    @Override
    public void clearOverrides() {
        overRedis(() -> {
            limiter.overrides().clear(origin());
            return null;
        });
    }

    @Override
    public String getOverrideOrigin() {
        return limiter.overrides().origin();
    }

    @Override
    public long getEffectiveLimit() {
        return limiter.effectiveRules().get(0).limit();
    }

    @Override
    public boolean getEffectiveEnforce() {
        return limiter.overrides().enforce(enforce);
    }

    /**
     * Runs a call to Redis for a JMX client, which need not have this library's classes: a
     * Redis failure travels as an IllegalStateException with its message, not as a type the
     * client cannot load.
     */
    private static <T> T overRedis(Supplier<T> call) {
        try {
            return call.get();
        } catch (RedisFailureException e) {
            throw new IllegalStateException(e.getMessage());
        }
    }

    /** Who asks: the JMX user when the connector authenticated one, the host, the instant. */
    private static String origin() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            host = "unknown host";
        }
        String user = JmxCaller.name();
        return "JMX" + (user == null ? "" : " user '" + user + "'") + " on " + host + " at " + Instant.now();
    }
}
