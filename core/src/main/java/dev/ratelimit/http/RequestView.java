package dev.ratelimit.http;

import java.util.List;

/**
 * The parts of an HTTP request that rate limiting reads, whatever the container. The servlet
 * filter and the JAX-RS filter each implement it over their own request type.
 */
public interface RequestView {

    /** The HTTP method, e.g. {@code GET}. */
    String method();

    /** The path within the application: the request URI without the context path. */
    String path();

    /** The address of the peer that connected (a proxy, when there is one). */
    String remoteAddress();

    /** Every value of a header, in order; empty when absent. */
    List<String> headers(String name);

    /** The first value of a header, or null. */
    default String header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? null : values.get(0);
    }

    /** The first value of a query-string parameter, or null. Never reads the request body. */
    String queryParameter(String name);

    /**
     * The first value of a field of the request's {@code application/x-www-form-urlencoded} body
     * (a browser's form post), or null: no such body, no such field, or a body too large or of
     * unknown length to read before the handler. An adapter that reads the body gives it whole to
     * the application afterwards, and leaves its parameters and character encoding as they were;
     * this default reads nothing.
     */
    default String formParameter(String name) {
        return null;
    }

    /** A cookie's value, or null. */
    String cookie(String name);

    /** The authenticated user's name, or null. */
    String userName();

    /** The id of the request's existing session, or null; never creates a session. */
    String sessionId();

    /** Whether the authenticated user has the role (the container's or JAX-RS' security); false when anonymous. */
    default boolean isUserInRole(String role) {
        return false;
    }

    /** A request attribute (what the application's own authentication may set), or null. */
    default Object attribute(String name) {
        return null;
    }

    /**
     * Whether this is the first time {@code marker} asks about this request, remembering that it
     * asked: true once, false afterwards. A request the container dispatches several times through
     * the same filter (FORWARD, INCLUDE, ERROR, ASYNC) is one request to rate limiting, so the
     * servlet view keeps the marker in a request attribute. Adapters whose filter runs once per
     * request (JAX-RS) may keep this default.
     */
    default boolean firstVisit(String marker) {
        return true;
    }

    /** The container's own request ({@code HttpServletRequest}, {@code ContainerRequestContext}), for custom resolvers. */
    <T> T unwrap(Class<T> type);

    /**
     * Whether the adapter can hold this request without a thread until a delayed admission's instant
     * ({@code maxDelay}): for the servlet filter, a request that may go asynchronous. This default,
     * for adapters that cannot (JAX-RS), is false: such a request over the limit is refused.
     */
    default boolean suspendable() {
        return false;
    }
}
