package dev.ratelimit.jaxrs;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.http.HttpAnswer;
import dev.ratelimit.http.HttpPolicy;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The filter {@link RateLimitFeature} registers for one annotated resource method, with its policy
 * and limiter built at deployment: a request decides, a denial aborts with the same answer as the
 * servlet filter, and an allowed response gets the rate-limit headers.
 */
final class RateLimitContainerFilter implements ContainerRequestFilter, ContainerResponseFilter {
    private static final Logger log = LoggerFactory.getLogger(RateLimitContainerFilter.class);
    private static final String DECISION = RateLimitContainerFilter.class.getName() + ".decision";
    private static final String ADMITTED_AT = RateLimitContainerFilter.class.getName() + ".admittedAt";

    private final HttpPolicy policy;
    private final RateLimiter limiter;

    /** A proxy to the current request, injected by the runtime when it runs in a servlet container. */
    @Context
    private HttpServletRequest servletRequest;

    /** Whether the application runs in a servlet container, decided once at deployment. */
    private final boolean inServletContainer;

    RateLimitContainerFilter(HttpPolicy policy, RateLimiter limiter, boolean inServletContainer) {
        this.policy = policy;
        this.limiter = limiter;
        this.inServletContainer = inServletContainer;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        JaxrsRequestView view = new JaxrsRequestView(request, currentServletRequest());
        if (!policy.appliesTo(request.getMethod(), view.path())) {
            return;
        }
        Decision decision = limiter.tryAcquire(policy.clientKey(view));
        if (decision.allowed() || !policy.enforce()) {
            request.setProperty(DECISION, decision);
            if (decision.allowed() && policy.adaptive()) {
                request.setProperty(ADMITTED_AT, System.nanoTime());
            }
            return;
        }
        Response.ResponseBuilder denial = Response.status(HttpAnswer.status(decision, policy))
                .type(HttpAnswer.PROBLEM_JSON)
                .entity(HttpAnswer.problemJson(decision, policy));
        HttpAnswer.writeHeaders(decision, policy, HttpAnswer.HeaderSink.of(denial::header,
                (name, value) -> denial.header(name, null).header(name, value)));
        log.debug("@RateLimited {} denied {}: {}", policy.policyName(), view.path(), decision);
        request.abortWith(denial.build());
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object decision = request.getProperty(DECISION);
        if (!(decision instanceof Decision)) {
            return;
        }
        Object admittedAt = request.getProperty(ADMITTED_AT);
        if (admittedAt instanceof Long) {
            // Adaptive limits watch how long admitted requests take: here, until the response is ready.
            limiter.recordAdmittedLatency(java.time.Duration.ofNanos(System.nanoTime() - (Long) admittedAt));
        }
        MultivaluedMap<String, Object> headers = response.getHeaders();
        HttpAnswer.writeHeaders((Decision) decision, policy, HttpAnswer.HeaderSink.of(headers::add, headers::putSingle));
    }

    private HttpServletRequest currentServletRequest() {
        // Outside a servlet container the proxy would throw on every request: not even asked.
        if (!inServletContainer || servletRequest == null) {
            return null;
        }
        try {
            // Touch the proxy: outside a servlet request it throws rather than answering.
            servletRequest.getRemoteAddr();
            return servletRequest;
        } catch (RuntimeException notInAServletRequest) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "RateLimitContainerFilter(" + policy.policyName() + ")";
    }
}
