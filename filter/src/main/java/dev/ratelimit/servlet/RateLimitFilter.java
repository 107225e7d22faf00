package dev.ratelimit.servlet;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.jmx.RateLimiterJmx;
import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.HttpAnswer;
import dev.ratelimit.http.HttpPolicy;
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
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
 * Retry-After}, problem+json body) and never reaches the chain. Filters of one webapp with the same
 * Redis settings share one connection pool, closed when the last of them is destroyed.
 */
public class RateLimitFilter implements Filter {
    private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);
    private static final String CONTEXT_PARAM_PREFIX = "ratelimit.";
    private static final long DRY_RUN_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private String filterName;
    private HttpPolicy policy;
    private RateLimiter limiter;
    private RedisStoreRegistry registry;
    private RateLimiterJmx.Registration mbean;
    private final AtomicLong dryRunDenials = new AtomicLong();
    private final AtomicLong lastDryRunLog = new AtomicLong(System.nanoTime() - DRY_RUN_LOG_INTERVAL_NANOS);

    /**
     * Reads and checks the configuration and connects the limiter (lazily: a Redis that is down at
     * startup is met by {@code onRedisFailure}, not by a failed deployment).
     *
     * @throws ServletException naming the bad init-param or context-param and its value
     */
    @Override
    public void init(FilterConfig config) throws ServletException {
        filterName = config.getFilterName();
        ServletContext context = config.getServletContext();
        try {
            policy = HttpPolicy.parser("init-param '%s'")
                    .defaults(contextDefaults(context), "context-param '" + CONTEXT_PARAM_PREFIX + "%s'")
                    .defaultPolicyName(filterName, "the filter-name")
                    .classLoader(context.getClassLoader())
                    .parse(initParams(config));
        } catch (IllegalArgumentException e) {
            throw new ServletException("RateLimitFilter '" + filterName + "' is misconfigured: " + e.getMessage(), e);
        }
        registry = RedisStoreRegistry.sharedIn(context::getAttribute, context::setAttribute);
        try {
            limiter = policy.newLimiter(registry.acquire(policy.redisSettings()));
        } catch (IllegalArgumentException e) {
            // Settings that only the Redis topology can refuse (transactions on Cluster).
            registry.release(policy.redisSettings());
            throw new ServletException("RateLimitFilter '" + filterName + "' is misconfigured: " + e.getMessage(), e);
        }
        if (policy.jmx()) {
            try {
                mbean = RateLimiterJmx.register(limiter, RateLimiterJmx.webappName(context.getContextPath()),
                        policy.toString());
            } catch (RuntimeException e) {
                // No destroy() follows a failed init(): give the Redis connection back here.
                registry.release(policy.redisSettings());
                throw new ServletException("RateLimitFilter '" + filterName + "' cannot register its JMX bean: "
                        + e.getMessage(), e);
            }
        }
        log.info("RateLimitFilter '{}' started: {}", filterName, policy);
    }

    private static Map<String, String> initParams(FilterConfig config) {
        Map<String, String> params = new HashMap<>();
        for (String name : Collections.list(config.getInitParameterNames())) {
            params.put(name, config.getInitParameter(name));
        }
        return params;
    }

    private static Map<String, String> contextDefaults(ServletContext context) {
        Map<String, String> defaults = new HashMap<>();
        for (String name : Collections.list(context.getInitParameterNames())) {
            if (name.startsWith(CONTEXT_PARAM_PREFIX)) {
                defaults.put(name.substring(CONTEXT_PARAM_PREFIX.length()), context.getInitParameter(name));
            }
        }
        return defaults;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest) || !(res instanceof HttpServletResponse)) {
            chain.doFilter(req, res);
            return;
        }
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        ServletRequestView view = new ServletRequestView(request);
        if (!policy.appliesTo(request.getMethod(), view.path())) {
            chain.doFilter(req, res);
            return;
        }
        Decision decision = limiter.tryAcquire(policy.clientKey(view));
        HttpAnswer.writeHeaders(decision, policy, HttpAnswer.HeaderSink.of(response::addHeader, response::setHeader));
        if (decision.allowed() && policy.adaptive()) {
            long start = System.nanoTime();
            try {
                chain.doFilter(req, res);
            } finally {
                limiter.recordAdmittedLatency(Duration.ofNanos(System.nanoTime() - start));
            }
        } else if (decision.allowed()) {
            chain.doFilter(req, res);
        } else if (!policy.enforce()) {
            logDryRunDenial();
            chain.doFilter(req, res);
        } else {
            log.debug("RateLimitFilter '{}' denied {}: {}", filterName, view.path(), decision);
            deny(response, decision);
        }
    }

    private void deny(HttpServletResponse response, Decision decision) throws IOException {
        byte[] body = HttpAnswer.problemJson(decision, policy).getBytes(StandardCharsets.UTF_8);
        response.setStatus(HttpAnswer.status(decision, policy));
        response.setContentType(HttpAnswer.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    /** A dry run logs what it would have denied, at most one line per few seconds. */
    private void logDryRunDenial() {
        long denials = dryRunDenials.incrementAndGet();
        long now = System.nanoTime();
        long last = lastDryRunLog.get();
        if (now - last >= DRY_RUN_LOG_INTERVAL_NANOS && lastDryRunLog.compareAndSet(last, now)) {
            log.info("RateLimitFilter '{}' (enforce=false) would have denied {} requests so far", filterName, denials);
        }
    }

    /** Gives the Redis connection back; the last filter of the webapp using it closes it. */
    @Override
    public void destroy() {
        if (mbean != null) {
            mbean.close();
            mbean = null;
        }
        if (registry != null && policy != null) {
            registry.release(policy.redisSettings());
        }
        registry = null;
        limiter = null;
    }
}
