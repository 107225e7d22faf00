package dev.ratelimit.jaxrs;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a resource method, or every method of a resource class; on a method it replaces the
 * class's annotation entirely. The attributes are the servlet filter's words; an attribute left
 * out takes the JAX-RS property {@code ratelimit.<name>}, else the servlet context-param
 * {@code ratelimit.<name>}, else the word's default. {@code limit} and {@code window} (or
 * {@code calendar}) must come from one of them.
 *
 * <pre>{@code
 * @Path("/orders")
 * @RateLimited(limit = 100, window = "1m")
 * public class OrdersResource {
 *     @POST
 *     @RateLimited(limit = 5, window = "1m", key = "user", cost = 1)
 *     public Response create(Order order) { ... }
 * }
 * }</pre>
 *
 * <p>Register {@link RateLimitFeature} for the annotation to take effect. Bad values fail the
 * deployment with a message naming the attribute and the value.
 */
@NameBinding
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RateLimited {
    /** The value of a numeric attribute that is not set. */
    long UNSET = Long.MIN_VALUE;

    /** Requests per window. */
    long limit() default UNSET;

    /** {@code 500ms}, {@code 10s}, {@code 1m}, {@code 1h}, {@code 1d} or ISO-8601 such as {@code PT1M}. */
    String window() default "";

    /** {@code day}, {@code week} or {@code month}: a count per calendar period in {@code timeZone}, instead of {@code window}. */
    String calendar() default "";

    /** With {@code calendar}: the time zone whose midnights start the periods, such as {@code Europe/Berlin}; UTC unless set. */
    String timeZone() default "";

    /**
     * {@code fixed-window}, {@code sliding-log} (default), {@code sliding-window}, {@code token-bucket},
     * {@code leaky-bucket}, {@code gcra}, or {@code concurrency}: requests in flight, {@code window} being
     * the lease timeout.
     */
    String algorithm() default "";

    /** Bucket capacity for the bucket algorithms; the limit unless set. */
    long burst() default UNSET;

    /** Permits one request takes; 1 unless set. */
    long cost() default UNSET;

    /**
     * A client that goes over the limit is then refused for this long on every node, such as
     * {@code 15m} or {@code 5s} (1 ms to 1 d); off unless set. Not with {@code concurrency}, a
     * {@code calendar}, {@code transport=transaction}, {@code leases} or {@code onRedisFailure=local}.
     */
    String penalty() default "";

    /** {@code ip} (default), {@code user} (the SecurityContext principal), {@code session}, {@code header:NAME}, {@code param:NAME}, {@code cookie:NAME}, {@code global}, joined with {@code +}. */
    String key() default "";

    /** {@code name:limit} pairs such as {@code partner:1000, staff:5000}, with {@code tierFrom}: the first tier the request belongs to gives its limit. */
    String tiers() default "";

    /** With {@code tiers}: {@code role} (the SecurityContext's roles), {@code attribute:NAME} or {@code header:NAME}. */
    String tierFrom() default "";

    /** Roles (the SecurityContext's) whose requests are not limited and get no rate-limit headers, separated by commas. */
    String exemptRoles() default "";

    /** Only answers with these statuses count, such as {@code 401,403} or {@code 4xx}; others give their permits back. */
    String countStatus() default "";

    /**
     * {@code true}: the resource reports the request's real cost in permits as the request property
     * {@link dev.ratelimit.http.Usage#ATTRIBUTE}: in a servlet container the servlet request's
     * attribute ({@code @Context HttpServletRequest}, {@code request.setAttribute(Usage.ATTRIBUTE, 50)}),
     * or {@code ContainerRequestContext.setProperty} where the runtime gives one; the difference from
     * what was taken up front is charged once the resource method has returned, past the limit too. Unset (false), the webapp-wide {@code ratelimit.chargeAfter}
     * applies (off unless set). Only with one rule of {@code gcra}, {@code token-bucket},
     * {@code fixed-window} or {@code sliding-log}, without {@code leases} or {@code transport=transaction}.
     */
    boolean chargeAfter() default false;

    /** The policy name in headers and Redis keys; {@code <ResourceClass>.<method>} unless set. */
    String policy() default "";
}
