package dev.ratelimit.jaxrs;

import dev.ratelimit.http.Usage;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.answer.HttpAnswer;
import dev.ratelimit.internal.http.pipeline.RateLimitPipeline;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import org.slf4j.LoggerFactory;

/**
 * The filter {@link RateLimitFeature} registers for one annotated resource method. It only
 * translates: the request to the core's {@link RateLimitPipeline}, a denial to an aborted request
 * with the servlet filter's answer, and the admission's headers to the response.
 *
 * <p>The response filter ends the request for the pipeline (for {@code concurrency}, gives its lease
 * back): after the resource method, after an exception an {@code ExceptionMapper} answered, and
 * for an asynchronous resource when it resumes. An exception no mapper answers bypasses response
 * filters in Jersey and RESTEasy alike (it goes to the container as a 500): such a request's lease
 * is only freed by its timeout, the rule's {@code window}. Map your exceptions, or limit the path
 * with the servlet filter, which sees every way a request ends.
 */
final class RateLimitContainerFilter implements ContainerRequestFilter, ContainerResponseFilter {
    private static final String ADMISSION = RateLimitContainerFilter.class.getName() + ".admission";

    private final RateLimitPipeline pipeline;

    /**
     * A proxy to the current request, injected by a runtime that injects filter instances
     * (RESTEasy). Jersey injects nothing into an instance a DynamicFeature registers: there the
     * request comes from {@link CurrentRequestListener}'s attribute.
     */
    @Context
    private HttpServletRequest servletRequest;

    /** Whether the application runs in a servlet container, decided once at deployment. */
    private final boolean inServletContainer;
    /** Whether it was said that no servlet request can be reached: once, not per request. */
    private volatile boolean unreachableLogged;

    RateLimitContainerFilter(RateLimitPipeline pipeline, boolean inServletContainer) {
        this.pipeline = pipeline;
        this.inServletContainer = inServletContainer;
    }

    @Override
    public void filter(ContainerRequestContext request) {
        Admission admission = pipeline.before(new JaxrsRequestView(request, currentServletRequest(request)));
        if (!admission.denied()) {
            // Headers go on the response, which exists only in the response filter.
            request.setProperty(ADMISSION, admission);
            return;
        }
        Response.ResponseBuilder denial = Response.status(admission.denialStatus())
                .type(admission.denialContentType())
                .entity(admission.denialBody());
        admission.writeHeaders(HttpAnswer.HeaderSink.of(denial::header,
                (name, value) -> denial.header(name, null).header(name, value)));
        request.abortWith(denial.build());
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        Object admission = request.getProperty(ADMISSION);
        if (admission instanceof Admission) {
            // The usage the resource reported (chargeAfter), read once its method has returned.
            pipeline.after((Admission) admission, response.getStatus(), request.getProperty(Usage.ATTRIBUTE));
            MultivaluedMap<String, Object> headers = response.getHeaders();
            ((Admission) admission).writeHeaders(HttpAnswer.HeaderSink.of(headers::add, headers::putSingle));
        }
    }

    private HttpServletRequest currentServletRequest(ContainerRequestContext request) {
        // Outside a servlet container the proxy would throw on every request: not even asked.
        if (!inServletContainer) {
            return null;
        }
        if (servletRequest != null) {
            try {
                // Touch the proxy: outside a servlet request it throws rather than answering.
                servletRequest.getRemoteAddr();
                return servletRequest;
            } catch (RuntimeException notInAServletRequest) {
                // the attribute may still have it
            }
        }
        Object carried = request.getProperty(CurrentRequestListener.ATTRIBUTE);
        if (carried instanceof HttpServletRequest) {
            return (HttpServletRequest) carried;
        }
        if (!unreachableLogged) {
            unreachableLogged = true;
            LoggerFactory.getLogger(RateLimitContainerFilter.class).warn("@RateLimited policy '{}' cannot reach the "
                    + "servlet request: clients keyed by ip or session count as the missing key, one bucket for all. "
                    + "The container ran no ServletContainerInitializer from WEB-INF/lib; add <listener><listener-class>"
                    + "{}</listener-class></listener> to web.xml", pipeline.policy().policyName(),
                    CurrentRequestListener.class.getName());
        }
        return null;
    }

    @Override
    public String toString() {
        return "RateLimitContainerFilter(" + pipeline.policy().policyName() + ")";
    }
}
