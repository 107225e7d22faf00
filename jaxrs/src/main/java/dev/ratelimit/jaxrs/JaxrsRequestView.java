package dev.ratelimit.jaxrs;

import dev.ratelimit.http.RequestView;
import dev.ratelimit.internal.http.client.FormFields;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Cookie;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.List;

/** A JAX-RS request as the core's {@link RequestView}, with the servlet request when there is one. */
final class JaxrsRequestView implements RequestView {
    private final ContainerRequestContext request;
    private final HttpServletRequest servletRequest;
    /** A form post's body, once read; empty for none. */
    private byte[] form;

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

    /**
     * Reads a form post's entity (at most {@link FormFields#MAX_BODY_BYTES}, of a known length) once,
     * and puts the same bytes back as the entity, so the resource method's {@code @FormParam}s and
     * readers find it whole (Jersey). RESTEasy in a servlet container reads the container's
     * parameters, and so does this view there.
     */
    @Override
    public String formParameter(String name) {
        if (servletRequest != null && request.getClass().getName().startsWith("org.jboss.resteasy.")) {
            // RESTEasy takes a form's fields from the servlet container's parameters (only RESTEasy 6
            // falls back to an entity put back, decoded otherwise): asking the container first gives
            // the method the very same fields.
            return "POST".equals(request.getMethod()) ? servletRequest.getParameter(name) : null;
        }
        if (form == null) {
            form = readForm();
        }
        return form.length == 0 ? null : FormFields.first(form, form.length, name, formCharset());
    }

    private byte[] readForm() {
        MediaType type = request.getMediaType();
        int length = request.getLength();
        if (!FormFields.readable(request.getMethod(), type == null ? null : type.toString(), length)
                || !request.hasEntity()) {
            return new byte[0];
        }
        InputStream entity = request.getEntityStream();
        byte[] kept = FormFields.read(entity, length);
        request.setEntityStream(new SequenceInputStream(new ByteArrayInputStream(kept), entity));
        return kept;
    }

    /** The charset the form declares, else UTF-8, as the JAX-RS runtimes read forms. */
    private Charset formCharset() {
        MediaType type = request.getMediaType();
        return FormFields.charset(type == null ? null : type.getParameters().get(MediaType.CHARSET_PARAMETER),
                StandardCharsets.UTF_8);
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
