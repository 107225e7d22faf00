package dev.ratelimit.jaxrs;

import dev.ratelimit.http.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;
import java.util.Collections;
import java.util.List;

/** A JAX-RS request as the core's {@link RequestView}, with the servlet request when there is one. */
final class JaxrsRequestView implements RequestView {
    private final ContainerRequestContext request;
    private final HttpServletRequest servletRequest;

    /**
     * @param servletRequest the underlying servlet request, or null outside a servlet container
     */
    JaxrsRequestView(ContainerRequestContext request, HttpServletRequest servletRequest) {
        this.request = request;
        this.servletRequest = servletRequest;
    }

    @Override
    public String path() {
        if (servletRequest != null) {
            String pathInfo = servletRequest.getPathInfo();
            return pathInfo == null ? servletRequest.getServletPath() : servletRequest.getServletPath() + pathInfo;
        }
        return "/" + request.getUriInfo().getPath();
    }

    /** JAX-RS itself does not know the peer: without a servlet request, {@code ip} has no value. */
    @Override
    public String remoteAddress() {
        return servletRequest == null ? null : servletRequest.getRemoteAddr();
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = request.getHeaders().get(name);
        return values == null ? Collections.<String>emptyList() : values;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String queryParameter(String name) {
        return request.getUriInfo().getQueryParameters().getFirst(name);
    }

    @Override
    public String cookie(String name) {
        Cookie cookie = request.getCookies().get(name);
        return cookie == null ? null : cookie.getValue();
    }

    /** The SecurityContext's principal: whatever authenticated the request for JAX-RS. */
    @Override
    public String userName() {
        SecurityContext security = request.getSecurityContext();
        Principal principal = security == null ? null : security.getUserPrincipal();
        return principal == null ? null : principal.getName();
    }

    /** The SecurityContext's roles, as {@link #userName()} reads its principal. */
    @Override
    public boolean isUserInRole(String role) {
        SecurityContext security = request.getSecurityContext();
        return security != null && security.isUserInRole(role);
    }

    /** A request property: on a servlet container, the servlet request's attributes. */
    @Override
    public Object attribute(String name) {
        Object property = request.getProperty(name);
        if (property == null && servletRequest != null) {
            property = servletRequest.getAttribute(name);
        }
        return property;
    }

    @Override
    public String sessionId() {
        HttpSession session = servletRequest == null ? null : servletRequest.getSession(false);
        return session == null ? null : session.getId();
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        if (type.isInstance(request)) {
            return type.cast(request);
        }
        return type.isInstance(servletRequest) ? type.cast(servletRequest) : null;
    }
}
