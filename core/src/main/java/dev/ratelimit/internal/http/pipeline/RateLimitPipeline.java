package dev.ratelimit.internal.http.pipeline;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.answer.HttpAnswer;
import dev.ratelimit.internal.http.checks.TrafficChecks;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.PolicyLimiters;
import dev.ratelimit.internal.http.settings.PolicyRequests;
import dev.ratelimit.internal.http.trace.DecisionTrace;
import dev.ratelimit.internal.support.LogThrottle;
import dev.ratelimit.internal.support.Loggers;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * The decision flow of one HTTP policy, written once for every adapter (servlet filter, JAX-RS,
 * either namespace): {@link #before} decides whether the request is limited at all, asks the
 * limiter, applies the dry run and the degraded answers, and says what the adapter must do;
 * {@link #after} hears how the handler ended (status and elapsed time) for what acts after the
 * response, such as adaptive limits. It knows no servlet or JAX-RS type. Thread-safe.
 */
public final class RateLimitPipeline {
    private static final Logger log = Loggers.of(RateLimitPipeline.class);

    private final HttpPolicy policy;
    private final PolicyRequests requests;
    private final HttpAnswer answer;
    private final RateLimiter limiter;
    /** Each tier's limiter, by tier name; empty without tiers. */
    private final Map<String, RateLimiter> tierLimiters;
    /** What {@link RequestView#firstVisit} remembers: unique to this pipeline, so two policies on one request each decide it. */
    private final String marker;
    private final TrafficChecks checks;
    /** {@code chargeAfter}: the usage handlers report, charged after the response. */
    private final UsageCharges charges;
    private final AtomicLong dryRunDenials = new AtomicLong();
    /** With {@code maxDelay}: this node's places for requests waiting their turn; else null. */
    private final WaitingPlaces waitingPlaces;
    private final LogThrottle dryRunLog = new LogThrottle(5, TimeUnit.SECONDS);
    /** {@code tracing=opentelemetry}: told each decision on the request's thread; else null. */
    private final DecisionTrace trace;
    /** Whether the trace is given the client key: only when it cannot be a secret. */
    private final boolean traceKeys;

    /** The limiters as {@link PolicyLimiters#newLimiter} and {@link PolicyLimiters#newTierLimiters} build them. */
    public RateLimitPipeline(HttpPolicy policy, RateLimiter limiter, Map<String, RateLimiter> tierLimiters) {
        this.policy = policy;
        this.requests = policy.requests();
        this.answer = new HttpAnswer(policy);
        this.limiter = limiter;
        this.tierLimiters = tierLimiters;
        this.marker = RateLimitPipeline.class.getName() + "." + policy.policyName() + "@"
                + Integer.toHexString(System.identityHashCode(this));
        this.checks = new TrafficChecks(policy.policyName(), requests.trustedProxies(), requests.readsClientAddress(),
                System::nanoTime);
        this.charges = new UsageCharges(policy.policyName());
        this.waitingPlaces = policy.waiting() == null ? null : new WaitingPlaces(policy.waiting().maxDelayed());
        this.trace = policy.limiters().trace();
        this.traceKeys = trace != null && requests.clientKeyShown();
    }

    /**
     * Decides a request before its handler runs. Never throws for a Redis failure: the policy's
     * {@code onRedisFailure} answers then (a degraded decision).
     *
     * <p>A request is decided once: when this pipeline already counted it (the container
     * dispatched it here again, for a forward, an include, an error page or an async dispatch),
     * it is {@link Admission#UNLIMITED}, neither counted nor given headers a second time. A request
     * the policy did not cover is not marked, so a forward from it to a covered path counts.
     */
    public Admission before(RequestView request) {
        if (!requests.appliesTo(request.method(), request.path()) || !request.firstVisit(marker)
                || requests.exempt(request)) {
            return Admission.UNLIMITED;
        }
        // One key, or null for several dimensions' keys (decide reads those).
        String clientKey = requests.dimensions() == null ? requests.clientKey(request) : null;
        if (trace == null) {
            return decide(request, clientKey);
        }
        // Here, on the request's thread, for both adapters: the server span is the current one. A span
        // of the limiter's own (tracingSpan=own) ends here too, whatever the decision, before the chain runs.
        DecisionTrace.Asked asked = trace.asking();
        Admission admission;
        try {
            admission = decide(request, clientKey);
        } catch (RuntimeException | Error e) {
            asked.failed(e);
            throw e;
        }
        asked.decided(admission.decision(), admission.denied(), traceKeys ? clientKey : null);
        return admission;
    }

    /** The decision of a request the policy limits: see {@link #before}. */
    private Admission decide(RequestView request, String clientKey) {
        checks.observe(request);
        RateLimiter decider;
        Decision decision;
        if (requests.dimensions() != null) {
            decider = limiter;
            List<String> clientKeys = requests.dimensions().clientKeys(request);
            for (int i = 0; i < clientKeys.size(); i++) {
                if (PolicyRequests.MISSING_KEY.equals(clientKeys.get(i))) {
                    checks.countedInSharedBucket(requests.dimensions().keyText(i));
                }
            }
            decision = limiter.tryAcquireEach(clientKeys);
        } else {
            decider = limiterFor(request);
            if (PolicyRequests.MISSING_KEY.equals(clientKey)) {
                checks.countedInSharedBucket(requests.keyDescription());
            }
            decision = mayWait(request) ? waitingPlaces.tryAcquire(decider, clientKey, policy.waiting().maxDelay())
                    : decider.tryAcquire(clientKey);
        }
        if (decision.allowed()) {
            // Adaptive limits watch how long admitted requests take (a wait for the turn is not the
            // handler's time); nobody else needs the clock read.
            boolean timed = policy.limiters().adaptive() && !decision.delayed();
            return new Admission(answer, decision, false, timed, timed ? System.nanoTime() : 0,
                    policy.countStatus() == null && !policy.chargeAfter() && !decision.delayed() ? null : clientKey, decider);
        }
        // enforce as configured, unless an operator overrides it live (read with the decision's rules).
        if (!limiter.overrides().enforce(policy.enforce())) {
            logDryRunDenial();
            return new Admission(answer, decision, false, false, 0, null, null);
        }
        if (log.isDebugEnabled()) {
            log.debug("Rate limit policy '{}' denied {} {}: {}", policy.policyName(), request.method(),
                    request.path(), decision);
        }
        return new Admission(answer, decision, true, false, 0, null, null);
    }

    /**
     * With {@code maxDelay}, a request over the limit may wait for its turn when the adapter can hold
     * it ({@link RequestView#suspendable()}) and the policy enforces (a dry run lets it through at
     * once, so it never waits).
     */
    private boolean mayWait(RequestView request) {
        return policy.waiting() != null && request.suspendable() && limiter.overrides().enforce(policy.enforce());
    }

    /**
     * Ends a delayed admission's wait ({@link Admission#delayed()}): its time came and the request
     * goes on, or it will not (the client left, the server stops). Call it once per delayed admission.
     * A request that will not go on ({@code goesOn} false) gives its permits back, for whichever is decided next.
     */
    public void waitOver(Admission admission, boolean goesOn) {
        waitingPlaces.release(admission.refundKey());
        if (!goesOn) {
            notRunAfterAll(admission);
        }
    }

    /**
     * Gives back the permits of a delayed admission whose wait ended with {@code waitOver(admission,
     * true)} but which did not run after all (the container would not resume it). Call it at most
     * once, and never after {@code waitOver(admission, false)}, which gives them back itself.
     */
    public void notRunAfterAll(Admission admission) {
        RateLimiter decider = admission.limiter() != null ? admission.limiter() : limiter;
        decider.refund(admission.refundKey(), admission.decision());
    }

    /**
     * A delayed admission the adapter could not hold after all (the container refused to suspend
     * the request): its permits go back, and it is answered as the denial it would have been
     * without {@code maxDelay}, retried once its turn would have come. Ends its wait
     * ({@link #waitOver}); call it instead of that.
     */
    public Admission refusedInstead(Admission delayed) {
        waitOver(delayed, false);
        Decision waited = delayed.decision();
        Decision denial = Decision.of(false, waited.rule(), 0, waited.delay(), waited.resetAfter());
        return new Admission(answer, denial, true, false, 0, null, null);
    }

    /**
     * With {@code maxDelay}, on this node: requests waiting for their turn now (with the decisions in
     * flight that may end in a wait), admitted for an instant ahead so far, and refused at once so far
     * because {@code maxDelayed} were waiting, and because their client held its share of the places
     * (as many as were still free); null without maxDelay.
     */
    public long[] waitingCounts() {
        return waitingPlaces == null ? null : new long[] {waitingPlaces.now(), waitingPlaces.delayedSoFar(),
            waitingPlaces.refusedFullSoFar(), waitingPlaces.refusedShareSoFar()};
    }

    /**
     * Hears how a request that was let through ended: its response status, (measured here) how long the handler took,
     * and the usage it reported ({@link dev.ratelimit.http.Usage#ATTRIBUTE}). Call it once per {@link #before} that was
     * not a denial, after the handler, also when it threw; for a request that went asynchronous, once it completes. It
     * gives back a {@code concurrency} admission's lease, and with {@code countStatus} or {@code chargeAfter} settles
     * the admission in one round trip; it never throws for a Redis failure.
     */
    public void after(Admission admission, int status, Object usage) {
        if (admission.decision() == null) {
            return;
        }
        // The limiter that decided: the policy's, or the request's tier's.
        RateLimiter decider = admission.limiter() != null ? admission.limiter() : limiter;
        decider.release(admission.decision());
        if (admission.timed()) {
            decider.recordAdmittedLatency(Duration.ofNanos(System.nanoTime() - admission.admittedAtNanos()));
        }
        if (!refundUncounted(admission, status) && policy.chargeAfter()) {
            charges.settle(admission, usage);
        }
    }

    /**
     * {@code countStatus}: the permits were taken up front, so concurrent requests can never pass the
     * limit; an answer whose status does not count gives them back. Only an admission carries the
     * key for it (a denial, dry run or not, took nothing); a degraded admission took nothing in
     * Redis, so the limiter finds nothing to give back. Never throws: a failed refund leaves the
     * permits counted. An answer that does not count is not charged either ({@code chargeAfter}).
     *
     * @return whether the answer does not count
     */
    private boolean refundUncounted(Admission admission, int status) {
        String key = admission.refundKey();
        if (key != null && policy.countStatus() != null && !policy.countStatus().matches(status)) {
            admission.limiter().refund(key, admission.decision());
            return true;
        }
        return false;
    }

    /** The limiter of the request's tier, or the policy's own. */
    private RateLimiter limiterFor(RequestView request) {
        if (tierLimiters.isEmpty()) {
            return limiter;
        }
        String tier = requests.tierOf(request);
        RateLimiter tierLimiter = tier == null ? null : tierLimiters.get(tier);
        return tierLimiter != null ? tierLimiter : limiter;
    }

    /** Each tier's limiter, by tier name in the order {@code tiers} lists them; empty without tiers. */
    public Map<String, RateLimiter> tierLimiters() {
        return Collections.unmodifiableMap(tierLimiters);
    }

    public TrafficChecks checks() {
        return checks;
    }

    /** How the policy's decisions read over HTTP: for answers the adapter writes itself. */
    public HttpAnswer answer() {
        return answer;
    }

    public HttpPolicy policy() {
        return policy;
    }

    /** A dry run logs what it would have denied, at most one line per few seconds. */
    private void logDryRunDenial() {
        long denials = dryRunDenials.incrementAndGet();
        if (dryRunLog.due()) {
            // Say where the dry run comes from, as the status page does: an operator who sees
            // "enforce=false" looks for it in web.xml and finds enforce=true there.
            Boolean overridden = limiter.overrides().enforce();
            String why = overridden != null && !overridden
                    ? "enforce overridden to false (" + limiter.overrides().origin() + ")" : "enforce=false";
            log.info("Rate limit policy '{}' ({}) would have denied {} requests so far", policy.policyName(), why,
                    denials);
        }
    }

    @Override
    public String toString() {
        return "RateLimitPipeline(" + policy.policyName() + ")";
    }
}
