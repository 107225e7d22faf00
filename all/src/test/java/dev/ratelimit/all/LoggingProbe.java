package dev.ratelimit.all;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Rule;
import java.time.Duration;

/**
 * The webapp's side of {@link LoggingStacksIT}, run in a JVM of its own on the library's jars and one
 * logging stack: a limiter that readies Redis at build, as the filter's do, which logs one INFO line
 * under {@code dev.ratelimit.RateLimiter}, then one decision, so the run shows the limiter works
 * whether or not its line arrives anywhere.
 */
final class LoggingProbe {
    /** The policy's name, in the line the test looks for. */
    static final String POLICY = "logging-probe";

    private LoggingProbe() {
    }

    /** @param args the Redis URI and the key prefix */
    public static void main(String[] args) {
        try (RedisStore store = RedisStore.connect(args[0])) {
            RateLimiter limiter = RateLimiter.builder(store).policyName(POLICY).keyPrefix(args[1])
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1))).warmUp(true).build();
            System.out.println("allowed=" + limiter.tryAcquire("client").allowed());
        }
    }
}
