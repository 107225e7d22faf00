package dev.ratelimit.internal.http.checks;

import dev.ratelimit.internal.support.Loggers;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Why a policy with {@code maxDelay} refuses requests it was set to let wait: the container will not
 * suspend them. Two findings, each logged once and shown while refused requests keep showing it:
 * <ul>
 * <li>{@code NOT_ASYNC_SUPPORTED}: the servlet, or a filter before the rate limit filter, is not
 * async-supported, so a request over the limit gets its 429 at once;
 * <li>{@code NO_ASYNC_DISPATCHER}: delayed requests came back at their turn without passing the
 * filter again, and none ever did, so the filter is taken as not mapped for the {@code ASYNC}
 * dispatcher: it refuses what it would have delayed, and looks again each minute. Once a delayed
 * request passes the filter again the mapping is proven, and the finding is gone for good.
 * </ul>
 * The adapter sees both (only the servlet filter suspends requests); this class keeps what the log
 * and the status page say about them. Thread-safe; a fixed number of fields.
 */
public final class WaitingCheck {
    static final String NOT_ASYNC = "NOT_ASYNC_SUPPORTED";
    static final String NO_ASYNC_DISPATCH = "NO_ASYNC_DISPATCHER";
    private static final Logger log = Loggers.of(TrafficChecks.class);

    private final String policyName;
    private final LongSupplier clock;
    private final RecentFinding notAsync = new RecentFinding();
    private final RecentFinding noAsyncDispatch = new RecentFinding();
    /** Set once a delayed request passed the filter again: the ASYNC mapping is proven for the webapp's life. */
    private volatile boolean redispatchSeen;
    /** The first refused request's path and servlet, e.g. {@code /export (servlet 'reports')}; null before it. */
    private volatile String where;

    WaitingCheck(String policyName, LongSupplier clock) {
        this.policyName = policyName;
        this.clock = clock;
    }

    /** A request refused rather than held: the container would not let it go async; where it went is asked once. */
    public void refusedNotAsync(Supplier<String> request) {
        if (where == null) {
            // Before the count, so that a warning never lacks it; two first requests may both write it.
            where = request.get();
        }
        if (notAsync.count(clock) == 0) {
            log.warn("Rate limit policy '{}' [{}]: maxDelay is set, but requests to {} cannot wait: the servlet or a"
                    + " filter before RateLimitFilter is not async-supported, so requests over the limit are refused"
                    + " with 429; add <async-supported>true</async-supported> to that servlet and to each filter mapped"
                    + " before RateLimitFilter. Logged once; the status page shows it while it lasts.",
                    policyName, NOT_ASYNC, where);
        }
    }

    /** Delayed requests came back without passing the filter again, none ever did, or one was refused since. */
    public void notRedispatched() {
        if (!redispatchSeen && noAsyncDispatch.count(clock) == 0) {
            log.warn("Rate limit policy '{}' [{}]: maxDelay is set, but delayed requests did not pass RateLimitFilter"
                    + " again when their turn came (none has since start): add <dispatcher>REQUEST</dispatcher> and"
                    + " <dispatcher>ASYNC</dispatcher> to its filter-mapping. Until one does, requests over the limit"
                    + " are refused with 429, and the filter tries delaying again each minute. Logged once; the status"
                    + " page shows it while it lasts.", policyName, NO_ASYNC_DISPATCH);
        }
    }

    /** Found at startup: the webapp's {@code WEB-INF/web.xml} maps the filter without the ASYNC dispatcher. */
    public void descriptorLacksAsync() {
        if (!redispatchSeen && noAsyncDispatch.count(clock) == 0) {
            log.warn("Rate limit policy '{}' [{}]: maxDelay is set, but WEB-INF/web.xml maps RateLimitFilter without"
                    + " <dispatcher>ASYNC</dispatcher>: add <dispatcher>REQUEST</dispatcher> and"
                    + " <dispatcher>ASYNC</dispatcher> to its filter-mapping. Until then requests over the limit are"
                    + " refused with 429. Logged once; the status page shows it while it lasts.", policyName,
                    NO_ASYNC_DISPATCH);
        }
    }

    /** A delayed request passed the filter again at its turn: the ASYNC mapping is proven. */
    public void redispatched() {
        redispatchSeen = true;
    }

    ConfigWarning notAsyncWarning() {
        long count = notAsync.recent(clock);
        return count == 0 ? null : new ConfigWarning(NOT_ASYNC, "requests to " + where + " cannot wait for their"
                + " turn (maxDelay): the servlet or a filter before RateLimitFilter is not async-supported, so"
                + " requests over the limit are refused with 429 (" + count + " since start). Add"
                + " <async-supported>true</async-supported> to that servlet and to each filter mapped before"
                + " RateLimitFilter.", count);
    }

    ConfigWarning noAsyncDispatchWarning() {
        long count = redispatchSeen ? 0 : noAsyncDispatch.recent(clock);
        return count == 0 ? null : new ConfigWarning(NO_ASYNC_DISPATCH, "RateLimitFilter is not mapped for the"
                + " ASYNC dispatcher, so requests over the limit are refused with 429 instead of waiting their turn"
                + " (maxDelay; " + count + " since start). Add <dispatcher>REQUEST</dispatcher> and"
                + " <dispatcher>ASYNC</dispatcher> to its filter-mapping and restart the webapp.", count);
    }
}
