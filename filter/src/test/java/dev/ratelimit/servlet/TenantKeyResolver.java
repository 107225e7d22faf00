package dev.ratelimit.servlet;

import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.http.RequestView;
import jakarta.servlet.http.HttpServletRequest;

/** A user's own key resolver, as named by keyResolverClass: reaches the servlet request itself. */
public class TenantKeyResolver implements KeyResolver {
    @Override
    public String resolve(RequestView request) {
        HttpServletRequest servletRequest = request.unwrap(HttpServletRequest.class);
        String tenant = servletRequest.getHeader("X-Tenant");
        return tenant == null ? null : "tenant:" + tenant;
    }
}
