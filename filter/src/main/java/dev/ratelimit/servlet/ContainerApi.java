package dev.ratelimit.servlet;

import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;

/**
 * The filter's calls that the oldest servlet API it runs on may lack. The javax jar is compiled
 * against Servlet 3.1, yet Tomcat 7 (Servlet 3.0) runs it too: there a 3.1 method called on the
 * container's request is a {@code NoSuchMethodError}, a 500 for the client. So such a call is made
 * only where the container's API declares it, else the 3.0 call that answers the same question.
 * (The jakarta jar always finds them: every jakarta API has them.)
 */
final class ContainerApi {
    /** Servlet 3.1's {@code ServletRequest.getContentLengthLong}, looked up in the container's API once. */
    private static final boolean CONTENT_LENGTH_LONG = declares(ServletRequest.class, "getContentLengthLong");

    private ContainerApi() {
    }

    /**
     * The request's declared body length, -1 when unknown. On Servlet 3.0 {@code getContentLength},
     * which also says -1 for a length past {@code Integer.MAX_VALUE}: either way too long to read.
     */
    static long contentLength(HttpServletRequest request) {
        return CONTENT_LENGTH_LONG ? request.getContentLengthLong() : request.getContentLength();
    }

    private static boolean declares(Class<?> type, String method) {
        try {
            type.getMethod(method);
            return true;
        } catch (NoSuchMethodException servlet30) {
            return false;
        }
    }
}
