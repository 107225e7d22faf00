package dev.ratelimit.servlet;

import dev.ratelimit.http.Usage;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.answer.HttpAnswer;
import dev.ratelimit.internal.http.pipeline.RateLimitPipeline;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.Settings;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.internal.http.webapp.Webapp;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Limits requests with Redis, configured entirely by {@code web.xml} init-params (and
 * {@code ratelimit.<name>} context-params as webapp-wide defaults).
 *
 * <pre>{@code
 * <filter>
 *   <filter-name>api</filter-name>
 *   <filter-class>dev.ratelimit.servlet.RateLimitFilter</filter-class>
 *   <init-param><param-name>limit</param-name><param-value>100</param-value></init-param>
 *   <init-param><param-name>window</param-name><param-value>1m</param-value></init-param>
 * </filter>
 * <filter-mapping><filter-name>api</filter-name><url-pattern>/api/*</url-pattern></filter-mapping>
 * }</pre>
 *
 * <p>Every init-param is checked in {@link #init}: an unknown name or a bad value throws a
 * {@link ServletException} naming the parameter and the value, so the container refuses to start
 * the webapp rather than run it unlimited. A denied request is answered here (status, {@code
 * Retry-After}, problem+json body) and never reaches the chain. A request let through is ended
 * (for {@code concurrency}, its lease released) once the chain returns or throws, or, if it went
 * asynchronous, once it completes, fails or times out. Filters of one webapp with the same Redis
 * settings share one connection pool, closed when the last of them is destroyed. The decisions
 * themselves are the core's {@link RateLimitPipeline}; this class only translates.
 */
public class RateLimitFilter implements Filter {
    private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);

    private PolicyRuntime runtime;
    private RateLimitPipeline pipeline;
    /** With {@code maxDelay}: the requests waiting for their turn; otherwise null. */
    private DelayedRequests delays;

    /**
     * Reads and checks the configuration and connects the limiter (lazily: a Redis that is down at
     * startup is met by {@code onRedisFailure}, not by a failed deployment).
     *
     * @throws ServletException naming the bad init-param or context-param and its value
     */
    @Override
    public void init(FilterConfig config) throws ServletException {
        String filterName = config.getFilterName();
        ServletContext context = config.getServletContext();
        try {
            Webapp webapp = Webapp.of(context.getContextPath(), Collections.list(context.getInitParameterNames()),
                    context::getInitParameter, context::getAttribute, context::setAttribute,
                    context::getResourceAsStream);
            HttpPolicy policy = HttpPolicy.parser("init-param '%s'")
                    .defaults(webapp.defaults(), Webapp.defaultsLabelFormat())
                    .resources(webapp.resources())
                    .defaultPolicyName(filterName, "the filter-name")
                    .classLoader(context.getClassLoader())
                    .parse(Settings.collect(Collections.list(config.getInitParameterNames()), config::getInitParameter,
                            ""));
            runtime = webapp.start(policy);
        } catch (IllegalArgumentException e) {
            throw new ServletException("RateLimitFilter '" + filterName + "' is misconfigured: " + e.getMessage(), e);
        } catch (IllegalStateException e) {
            throw new ServletException("RateLimitFilter '" + filterName + "' " + e.getMessage(), e);
        }
        pipeline = runtime.pipeline();
        delays = runtime.policy().waiting() == null ? null : new DelayedRequests(filterName, pipeline,
                DescriptorDispatchers.of(context.getResourceAsStream("/WEB-INF/web.xml"), filterName));
        log.info("RateLimitFilter '{}' started: {}", filterName, runtime.policy());
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest) || !(res instanceof HttpServletResponse)) {
            chain.doFilter(req, res);
            return;
        }
        HttpServletResponse response = (HttpServletResponse) res;
        Admission resumed = delays == null ? null : delays.resumed(req);
        if (resumed != null) {
            // Its turn came ({@code maxDelay}): on as admitted, its headers written when it was held.
            pass(req, response, chain, resumed);
            return;
        }
        HttpServletRequest httpRequest = (HttpServletRequest) req;
        ServletRequestView view = new ServletRequestView(httpRequest, delays != null && delays.canHold(httpRequest));
        Admission admission = pipeline.before(view);
        // The request itself, or one that gives back a form body the key was read from.
        ServletRequest request = view.request();
        AsyncContext held = null;
        if (admission.delayed()) {
            // Suspended before anything is written: a container that refuses gets the plain denial.
            held = delays.suspend(request, response);
            if (held == null) {
                admission = pipeline.refusedInstead(admission);
            }
        }
        if (admission.limited()) {
            admission.writeHeaders(new ResponseHeaders(response));
        }
        if (admission.denied()) {
            if (delays != null) {
                // Before the answer leaves: whoever reads the log or the status page once the client has
                // its 429 finds why it was not held.
                delays.refused(httpRequest);
            }
            byte[] body = admission.denialBody().getBytes(StandardCharsets.UTF_8);
            response.setStatus(admission.denialStatus());
            response.setContentType(admission.denialContentType());
            response.setCharacterEncoding("UTF-8");
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
            response.flushBuffer();
            return;
        }
        if (held != null) {
            delays.hold(held, (HttpServletRequest) request, response, admission);
            return;
        }
        pass(request, response, chain, admission);
    }

    /** Lets an admitted request through, and ends it once the chain returns or the async request ends. */
    private void pass(ServletRequest request, HttpServletResponse response, FilterChain chain, Admission admission)
            throws IOException, ServletException {
        boolean returned = false;
        try {
            chain.doFilter(request, response);
            returned = true;
        } finally {
            if (!returned || !admission.limited() || !afterAsync(request, admission, response)) {
                // The usage the handler reported (chargeAfter), read once it has run.
                pipeline.after(admission, response.getStatus(), request.getAttribute(Usage.ATTRIBUTE));
            }
        }
    }

    /**
     * For a request that went asynchronous, defers {@link RateLimitPipeline#after} (which gives
     * back a {@code concurrency} lease and charges the usage reported) until the request ends. The listener is added while this
     * dispatch still runs, when the container accepts it even if another thread already completed
     * the request: the completion is only carried out once the dispatch returns.
     *
     * @return false when the request is not asynchronous, or the container refused the listener:
     *     then the caller ends it now
     */
    private boolean afterAsync(ServletRequest req, Admission admission, HttpServletResponse response) {
        if (!req.isAsyncStarted()) {
            return false;
        }
        try {
            req.getAsyncContext().addListener(new AfterAsync(pipeline, admission, req, response));
            return true;
        } catch (IllegalStateException alreadyOver) {
            return false;
        }
    }

    /** Gives the Redis connection back; the last filter of the webapp using it closes it. */
    @Override
    public void destroy() {
        if (delays != null) {
            delays.close();
        }
        if (runtime != null) {
            runtime.close();
        }
        runtime = null;
        pipeline = null;
        delays = null;
    }

    /** The response as a header sink: one object per limited request, where two method references and a sink made three. */
    private static final class ResponseHeaders implements HttpAnswer.HeaderSink {
        private final HttpServletResponse response;

        ResponseHeaders(HttpServletResponse response) {
            this.response = response;
        }

        @Override
        public void add(String name, String value) {
            response.addHeader(name, value);
        }

        @Override
        public void set(String name, String value) {
            response.setHeader(name, value);
        }
    }
}
