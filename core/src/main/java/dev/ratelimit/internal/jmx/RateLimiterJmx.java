package dev.ratelimit.internal.jmx;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.RateLimiterStats;
import dev.ratelimit.internal.support.Loggers;
import java.lang.management.ManagementFactory;
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

    /** Unregisters the bean, by the name it was registered under; close it once. */
    public interface Registration extends AutoCloseable {
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

    /**
     * Registers the limiter's bean; two policies of one name in one webapp get {@code instance=2}, and so on. It
     * shows the configured {@code enforce} against the effective one, and finds one client through {@code clients}.
     */
    public static Registration register(RateLimiter limiter, String webapp, String configuration, boolean enforce,
            ClientOperations clients) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        LimiterBean bean = new LimiterBean(limiter, configuration, enforce, clients);
        for (int instance = 1; ; instance++) {
            ObjectName name = name(webapp, limiter.policyName(), instance);
            try {
                server.registerMBean(bean, name);
                return () -> {
                    try {
                        server.unregisterMBean(name);
                    } catch (JMException e) {
                        log.warn("Could not unregister {}", name, e);
                    }
                };
            } catch (InstanceAlreadyExistsException taken) {
                // another limiter with that name: try the next instance number
            } catch (JMException e) {
                throw new IllegalStateException("cannot register " + name + " with JMX", e);
            }
        }
    }
}
