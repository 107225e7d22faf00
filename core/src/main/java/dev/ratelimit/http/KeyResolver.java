package dev.ratelimit.http;

/**
 * Turns a request into the client key it is counted under. Implement it for a key the built-in
 * words ({@code ip}, {@code user}, {@code header:NAME}, ...) cannot express, and name the class
 * in {@code keyResolverClass}; it needs a public no-argument constructor and must be thread-safe.
 *
 * <pre>{@code
 * public class TenantKey implements KeyResolver {
 *     public String resolve(RequestView request) {
 *         HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
 *         return servletRequest == null ? null : (String) servletRequest.getAttribute("tenant");
 *     }
 * }
 * }</pre>
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * @return the client key, or null (or empty) when the request has none: such requests share
     *     the policy's one "missing" bucket
     */
    String resolve(RequestView request);
}
