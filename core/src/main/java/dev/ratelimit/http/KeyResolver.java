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

    /**
     * The client key of a client that sends {@code value}, for an operator who looks one client up
     * or resets it by what it sends (an address, a user name, an API key) rather than by its key.
     * The built-in words key it as they key a request (IPv6 networks, digests of secret parts); a
     * resolver of your own gets the key itself, as {@link #resolve} returns it.
     *
     * @return the key, or null when no client of this resolver's can send that value (such as
     *     {@code global}, or {@code ip} given something that is no address)
     */
    default String keyOfValue(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
