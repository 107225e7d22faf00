package dev.ratelimit.internal.http.answer;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.internal.http.pipeline.RateLimitPipeline;

/**
 * What the {@link RateLimitPipeline} decided for one request before its handler runs: not limited
 * at all, let through (allowed, or denied in a dry run), or denied. An adapter writes
 * {@link #writeHeaders headers} on the response, and for a denial answers with
 * {@link #denialStatus()}, {@link #denialContentType()} and {@link #denialBody()} instead of
 * calling the handler; otherwise it calls the handler and then
 * {@link RateLimitPipeline#after(Admission, int, Object)}. Immutable.
 */
public final class Admission {
    /** The header of a response whose request waited for its turn ({@code maxDelay}): the wait, in milliseconds. */
    public static final String DELAY_HEADER = "X-RateLimit-Delay";
    /** A request no policy limits: no headers, nothing to do afterwards. */
    public static final Admission UNLIMITED = new Admission(null, null, false, false, 0, null, null);

    private final HttpAnswer answer;
    private final Decision decision;
    private final boolean denied;
    /** Whether the handler's time is measured (for adaptive limits), and from when, in nanoseconds. */
    private final boolean timed;
    private final long admittedAtNanos;
    /** The client key, kept when the admission may be settled after the handler or given back before it runs. */
    private final String refundKey;
    /** The limiter that decided (the policy's or its tier's), to give the permits back to; or null. */
    private final RateLimiter limiter;

    public Admission(HttpAnswer answer, Decision decision, boolean denied, boolean timed, long admittedAtNanos,
            String refundKey, RateLimiter limiter) {
        this.answer = answer;
        this.decision = decision;
        this.denied = denied;
        this.timed = timed;
        this.admittedAtNanos = admittedAtNanos;
        this.refundKey = refundKey;
        this.limiter = limiter;
    }

    /** Whether a policy counted the request (then it carries rate-limit headers). */
    public boolean limited() {
        return decision != null;
    }

    /** Whether the request must be answered with the denial instead of running its handler. */
    public boolean denied() {
        return denied;
    }

    /**
     * Whether the request was admitted for an instant ahead ({@code maxDelay}): the adapter holds it
     * until {@link Decision#delay()} has passed, then lets it through, and calls
     * {@code RateLimitPipeline.waitOver} once either way.
     */
    public boolean delayed() {
        return decision != null && !denied && decision.delayed();
    }

    /** The limiter's decision, or null when the request was not limited. */
    public Decision decision() {
        return decision;
    }

    /**
     * Writes the policy's rate-limit headers (and, for any denial, {@code Retry-After}); nothing
     * for a request that was not limited, or for a degraded decision's quota.
     */
    public void writeHeaders(HttpAnswer.HeaderSink headers) {
        if (decision != null) {
            answer.writeHeaders(decision, headers);
            if (delayed() && (answer.headerMode().draft() || answer.headerMode().legacy())) {
                // How long the request waits for its turn before it runs, in whole milliseconds rounded up.
                headers.set(DELAY_HEADER, Long.toString((decision.delay().toNanos() + 999_999) / 1_000_000));
            }
        }
    }

    /** See {@link HttpAnswer#status}. */
    public int denialStatus() {
        return answer.status(decision);
    }

    /** The policy's {@code denialContentType} with {@code denialBody}, else {@value HttpAnswer#PROBLEM_JSON}. */
    public String denialContentType() {
        return answer.contentType();
    }

    /** The denial's body: the policy's {@code denialBody} filled in, else RFC 9457 problem+json. */
    public String denialBody() {
        return answer.body(decision);
    }

    public boolean timed() {
        return timed;
    }

    public long admittedAtNanos() {
        return admittedAtNanos;
    }

    public String refundKey() {
        return refundKey;
    }

    public RateLimiter limiter() {
        return limiter;
    }

    @Override
    public String toString() {
        return decision == null ? "not limited" : (denied ? "denied: " : "let through: ") + decision;
    }
}
