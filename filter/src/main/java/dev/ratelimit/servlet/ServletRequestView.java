package dev.ratelimit.servlet;

import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.client.FormFields;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/** A servlet request as the core's {@link RequestView}. */
final class ServletRequestView implements RequestView {
    private final HttpServletRequest request;
    /** The request that gives back a form body this view read; null while it read none. */
    private FormPostRequest passedOn;
    /** Whether the filter can hold this request until a delayed admission's turn ({@link DelayedRequests}). */
    private final boolean suspendable;

    ServletRequestView(HttpServletRequest request, boolean suspendable) {
        this.request = request;
        this.suspendable = suspendable;
    }

    @Override
    public boolean suspendable() {
        return suspendable;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    /**
     * The container's decoded and normalised path (servlet path + path info), not the raw URI: a
     * raw {@code /static/../api/orders} must not slip past {@code excludePaths=/static/*}.
     */
    @Override
    public String path() {
        String pathInfo = request.getPathInfo();
        return pathInfo == null ? request.getServletPath() : request.getServletPath() + pathInfo;
    }

    @Override
    public String remoteAddress() {
        return request.getRemoteAddr();
    }

    @Override
    public List<String> headers(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? Collections.<String>emptyList() : Collections.list(values);
    }

    /** The container's own lookup: no enumeration and no list for a header that every request is asked for. */
    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    /** Read from the query string by hand: {@code getParameter} would consume a form body the application wants. */
    @Override
    public String queryParameter(String name) {
        return FormFields.first(request.getQueryString(), name);
    }

    /**
     * Reads a form post's body ({@link FormPost}) the first time a field is asked for; from then on
     * {@link #request()} is the request that gives the body back to the application.
     */
    @Override
    public String formParameter(String name) {
        boolean readBefore = request.getAttribute(FormPost.ATTRIBUTE) != null;
        FormPost form = FormPost.of(request);
        if (form == null) {
            return null;
        }
        if (!readBefore) {
            // Read here and now: the application must get it back. (Read for an earlier policy, the
            // request this view wraps already gives it back.)
            passedOn = new FormPostRequest(request, form);
        }
        return form.first(request, name);
    }

    /**
     * The request to pass down the chain: the container's, or, once this view read a form body, the
     * one that gives it back.
     */
    HttpServletRequest request() {
        return passedOn != null ? passedOn : request;
    }

    @Override
    public String cookie(String name) {
        Cookie[] cookies;
        try {
            cookies = request.getCookies();
        } catch (RuntimeException malformed) {
            // Jetty refuses a malformed Cookie header by throwing (a 400 from inside our filter), Tomcat
            // skips it: either way the client has no usable cookie, so it shares the missing-key bucket.
            return null;
        }
        if (cookies != null) {
            for (Cookie cookie : cookies) {
                if (cookie.getName().equals(name)) {
                    return cookie.getValue();
                }
            }
        }
        return null;
    }

    @Override
    public String userName() {
        Principal principal = request.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    @Override
    public String sessionId() {
        HttpSession session = request.getSession(false);
        return session == null ? null : session.getId();
    }

    @Override
    public boolean isUserInRole(String role) {
        return request.isUserInRole(role);
    }

    @Override
    public Object attribute(String name) {
        return request.getAttribute(name);
    }

    /**
     * A request attribute: it survives the container's later dispatches of the same request
     * (forward, include, error page, async), whatever {@code <dispatcher>} maps the filter.
     */
    @Override
    public boolean firstVisit(String marker) {
        if (request.getAttribute(marker) != null) {
            return false;
        }
        request.setAttribute(marker, Boolean.TRUE);
        return true;
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        return type.isInstance(request) ? type.cast(request) : null;
    }
}
