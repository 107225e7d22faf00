package dev.ratelimit.internal.rules;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Rule;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.support.Arguments;
import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Where a delayed admission ({@code maxDelay}: a request over the limit takes its permits for the
 * instant they free up) can be kept exactly, and how long a wait may be. Read by the engine before
 * each delaying call and, to fail at startup with the setting's name, by the HTTP settings.
 *
 * <p>Why each is refused:
 * <ul>
 * <li>algorithms without a {@code reserve} in their script: the approximate
 * {@code sliding-window} and {@code leaky-bucket} would not run the request at an exact instant,
 * {@code concurrency} frees up when others finish, at no instant anyone knows, and calendar rules
 * reset at a period's start, usually far beyond any wait worth holding a request for.
 * <li>several rules (the HTTP {@code limits}): each rule would free up at its own instant, and one
 * call cannot take them all for the latest without a promise the others could break.
 * <li>{@code transaction}: its MULTI/EXEC decisions cannot reserve.
 * <li>quota leases: a node admitting from a lease does not see the permits others reserved ahead.
 * <li>a penalty: a request over the limit is either boxed or delayed; both at once contradict.
 * </ul>
 */
public final class DelayRules {
    /**
     * The longest wait: past a minute the proxies in front of most servers (nginx's
     * {@code proxy_read_timeout}, a cloud load balancer's idle timeout) give up on the request.
     */
    public static final Duration MAX_DELAY = Duration.ofSeconds(60);

    /** The algorithms whose scripts can take a request's permits for an instant ahead. */
    private static final Set<Algorithm> RESERVING = EnumSet.of(Algorithm.GCRA, Algorithm.SLIDING_LOG,
            Algorithm.TOKEN_BUCKET, Algorithm.FIXED_WINDOW);

    private DelayRules() {
    }

    /** Why these rules cannot delay a request, or null when they can. */
    public static String refusal(List<Rule> rules, Transport transport, boolean quotaLeases) {
        Rule rule = rules.get(0);
        return rules.size() > 1 ? "several rules (" + rules + "): each frees up at its own instant"
                : rule.calendar() != null ? "a calendar rule: it frees up at the next period, not within a wait"
                : !RESERVING.contains(rule.algorithm()) ? "algorithm " + rule.algorithm().configName()
                + ": only gcra, sliding-log, token-bucket and fixed-window can take permits for an instant ahead"
                : transport != Transport.LUA ? "transport " + transport + ": its MULTI/EXEC decisions cannot "
                + "reserve; use transport lua"
                : quotaLeases ? "leases: a node admitting from its lease would not see permits reserved ahead"
                : rule.penalty() != null ? "penalty: a request over the limit is either boxed or delayed"
                : null;
    }

    /** @throws BadArgument naming {@code maxDelay} when out of bounds, or the rules cannot delay */
    public static void check(List<Rule> rules, Transport transport, boolean quotaLeases, Duration maxDelay) {
        Arguments.checkWholeMillis("maxDelay", maxDelay, MAX_DELAY);
        String refusal = refusal(rules, transport, quotaLeases);
        if (refusal != null) {
            throw BadArgument.predicate("maxDelay", "(" + Durations.format(maxDelay) + ") cannot be combined with "
                    + refusal);
        }
    }

    /**
     * Checks a call of {@code RateLimiter.tryAcquire(key, maxDelay)}, given {@link #refusal} of the limiter's rules:
     * a BadArgument naming {@code maxDelay} out of bounds, an IllegalStateException saying why the rules cannot delay.
     */
    public static void checkCall(String refusal, Duration maxDelay) {
        Arguments.checkWholeMillis("maxDelay", maxDelay, MAX_DELAY);
        if (refusal != null) {
            throw new IllegalStateException("a delayed admission cannot be taken with " + refusal);
        }
    }
}
