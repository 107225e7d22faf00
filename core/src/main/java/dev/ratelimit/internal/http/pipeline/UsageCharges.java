package dev.ratelimit.internal.http.pipeline;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.http.Usage;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.support.Loggers;
import java.math.BigDecimal;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.slf4j.Logger;

/**
 * {@code chargeAfter}: reads the usage a handler reported ({@link Usage#ATTRIBUTE}) and settles the
 * admission at it ({@link RateLimiter#charge}). A usage that is not a whole number from 0 up charges
 * nothing, and one above the rule's capacity is charged as the capacity, each logged once per
 * policy: a handler that reports a wrong value does so on every request, and a WARN per request
 * would drown the log. Thread-safe.
 */
final class UsageCharges {
    private static final Logger log = Loggers.of(UsageCharges.class);
    private static final Pattern DECIMAL = Pattern.compile("[+-]?\\d{1,30}(\\.\\d{1,30})?");

    private final String policyName;
    private final AtomicBoolean unreadableLogged = new AtomicBoolean();
    private final AtomicBoolean cappedLogged = new AtomicBoolean();

    UsageCharges(String policyName) {
        this.policyName = policyName;
    }

    /**
     * Charges the admission at the usage the handler reported; nothing without one, or for an
     * admission that kept no client key (not admitted by Redis for this policy). Never throws for a
     * Redis failure (the limiter logs and counts it).
     */
    void settle(Admission admission, Object usage) {
        if (usage == null || admission.refundKey() == null) {
            return;
        }
        BigDecimal permits = permits(usage);
        if (permits == null || permits.signum() < 0) {
            if (unreadableLogged.compareAndSet(false, true)) {
                log.warn("Rate limit policy '{}' charges nothing for usage '{}' in dev.ratelimit.usage: it must be a "
                        + "whole number of permits from 0 up, such as 50 (logged once per policy)", policyName, usage);
            }
            return;
        }
        RateLimiter limiter = admission.limiter();
        long capacity = limiter.rules().get(0).capacity();
        if (permits.compareTo(BigDecimal.valueOf(capacity)) > 0) {
            if (cappedLogged.compareAndSet(false, true)) {
                log.warn("Rate limit policy '{}' charges usage '{}' in dev.ratelimit.usage as {} permits, its rule's "
                        + "capacity: one request never costs more (logged once per policy)", policyName, usage, capacity);
            }
            permits = BigDecimal.valueOf(capacity);
        }
        limiter.charge(admission.refundKey(), admission.decision(), permits.longValueExact());
    }

    /** The usage as a whole number (any sign), or null when it is none: a fraction, NaN, another type. */
    static BigDecimal permits(Object usage) {
        String text = usage instanceof Number || usage instanceof String ? usage.toString().trim() : "";
        if (!(usage instanceof Number) && !DECIMAL.matcher(text).matches()) {
            return null;
        }
        try {
            BigDecimal value = new BigDecimal(text);
            return value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros().scale() > 0 ? null : value;
        } catch (NumberFormatException e) {
            // NaN or Infinity, as a Double prints them.
            return null;
        }
    }
}
