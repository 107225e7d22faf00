package dev.ratelimit.internal.http.checks;

import dev.ratelimit.internal.support.Loggers;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * {@code SHARED_BUCKET}: requests whose key has no value at all (a {@code header:X-Api-Key} the
 * client does not send, {@code user} for anonymous requests) are counted in the policy's one
 * shared bucket, so one client can use up the limit of every such client. Logged once, with the
 * key and the parts that were absent; shown while such requests keep coming.
 */
final class SharedBucketCheck {
    static final String CODE = "SHARED_BUCKET";
    private static final Logger log = Loggers.of(TrafficChecks.class);

    private final String policyName;
    private final LongSupplier clock;
    private final RecentFinding requests = new RecentFinding();
    /** The key of the first request, as configured; null before it. */
    private volatile String key;

    SharedBucketCheck(String policyName, LongSupplier clock) {
        this.policyName = policyName;
        this.clock = clock;
    }

    void counted(String key) {
        if (requests.count(clock) == 0) {
            this.key = key;
            log.warn("Rate limit policy '{}' [{}]: a request had no value for any part of key '{}', so it was counted"
                    + " in the policy's one shared bucket with every other such request: one client can use up their"
                    + " limit for all. Add a part every request has to init-param 'key', such as ip. Logged once;"
                    + " the status page counts them.", policyName, CODE, key);
        }
    }

    ConfigWarning warning() {
        long count = requests.recent(clock);
        if (count == 0) {
            return null;
        }
        return new ConfigWarning(CODE, count + " requests since start had no value for any part of key '" + key
                + "' and shared one bucket: one client can use up the limit of all of them. Add a part every"
                + " request has to init-param 'key', such as ip.", count);
    }
}
