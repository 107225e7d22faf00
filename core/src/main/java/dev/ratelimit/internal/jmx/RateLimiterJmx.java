package dev.ratelimit.internal.jmx;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.http.settings.Settings;
import dev.ratelimit.internal.support.Loggers;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Instant;
import java.util.function.Supplier;
import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;

/**
 * Publishes a limiter's {@link RateLimiterStats} as a platform MXBean. Register in the webapp's
 * start, {@link Registration#close() close} in its stop: an MBean left behind would pin the
 * webapp's class loader.
 */
public final class RateLimiterJmx {
    private static final Logger log = Loggers.of(RateLimiterJmx.class);

    /** Unregisters the bean; closing twice does nothing. */
    public interface Registration extends AutoCloseable {
        /** The name the bean was registered under. */
        ObjectName name();

        @Override
        void close();
    }

    private RateLimiterJmx() {
    }

    /** The name of a policy's bean: {@code dev.ratelimit:type=RateLimiter,webapp=...,policy=...}. */
    public static ObjectName name(String webapp, String policyName, int instance) {
        try {
            return new ObjectName("dev.ratelimit:type=RateLimiter,webapp=" + ObjectName.quote(webapp) + ",policy="
                    + ObjectName.quote(policyName) + (instance > 1 ? ",instance=" + instance : ""));
        } catch (JMException e) {
            throw new IllegalArgumentException("no JMX name can be made for policy '" + policyName + "'", e);
        }
    }

    /** The {@code webapp} of a servlet context's beans: its context path, {@code /} for the root. */
    public static String webappName(String contextPath) {
        return contextPath.isEmpty() ? "/" : contextPath;
    }

    /**
     * Registers the limiter's bean. Two policies of one name in one webapp get {@code instance=2},
     * and so on.
     *
     * @param webapp the webapp's context path, {@code /} for the root
     * @param configuration the effective configuration to show, without secrets
     */
    public static Registration register(RateLimiter limiter, String webapp, String configuration) {
        return register(limiter, webapp, configuration, true);
    }

    /**
     * Registers the limiter's bean, which shows the effective {@code enforce} against the configured one.
     *
     * @param enforce the policy's configured {@code enforce}
     */
    public static Registration register(RateLimiter limiter, String webapp, String configuration, boolean enforce) {
        return register(limiter, webapp, configuration, enforce, ClientOperations.byKey(limiter));
    }

    /**
     * Registers the limiter's bean, whose {@code peekClient} and {@code resetClient} go to {@code clients}.
     *
     * @param clients how the bean finds one client by the value it sends
     */
    public static Registration register(RateLimiter limiter, String webapp, String configuration, boolean enforce,
            ClientOperations clients) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Bean bean = new Bean(limiter, configuration, enforce, clients);
        for (int instance = 1; ; instance++) {
            ObjectName name = name(webapp, limiter.policyName(), instance);
            try {
                server.registerMBean(bean, name);
                return new Registration() {
                    private boolean closed;

                    @Override
                    public ObjectName name() {
                        return name;
                    }

                    @Override
                    public synchronized void close() {
                        if (closed) {
                            return;
                        }
                        closed = true;
                        try {
                            server.unregisterMBean(name);
                        } catch (JMException e) {
                            log.warn("Could not unregister {}", name, e);
                        }
                    }
                };
            } catch (InstanceAlreadyExistsException taken) {
                // another limiter with that name: try the next instance number
            } catch (JMException e) {
                throw new IllegalStateException("cannot register " + name + " with JMX", e);
            }
        }
    }

    private static final class Bean implements RateLimiterMXBean {
        private final RateLimiter limiter;
        private final String configuration;
        private final boolean enforce;
        private final ClientOperations clients;

        Bean(RateLimiter limiter, String configuration, boolean enforce, ClientOperations clients) {
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
            String refusal = limiter.stats().redisRefusal();
            return refusal == null ? "" : refusal;
        }

        @Override
        public String getRedisEviction() {
            String eviction = limiter.stats().redisEviction();
            return eviction == null ? "" : eviction;
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
}
