package dev.ratelimit.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.security.Principal;
import java.util.Arrays;
import java.util.List;

/**
 * A webapp's own authentication, as legacy applications have it, mapped before the rate limit
 * filter: the user and roles come from test headers ({@code X-Test-User}, {@code X-Test-Roles}),
 * and a plan for tiers by attribute is set as the request attribute {@code plan} from
 * {@code X-Test-Plan}. Tests only: it trusts the client entirely.
 */
public class HeaderAuthenticationFilter implements Filter {
    /** Servlet 3.1 (the javax copy) has no default for it. */
    @Override
    public void init(FilterConfig config) {
        // nothing to read
    }

    /** Servlet 3.1 (the javax copy) has no default for it. */
    @Override
    public void destroy() {
        // nothing held
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        String user = http.getHeader("X-Test-User");
        String roles = http.getHeader("X-Test-Roles");
        List<String> granted = roles == null ? List.of() : Arrays.asList(roles.split(","));
        if (http.getHeader("X-Test-Plan") != null) {
            request.setAttribute("plan", http.getHeader("X-Test-Plan"));
        }
        chain.doFilter(new HttpServletRequestWrapper(http) {
            @Override
            public Principal getUserPrincipal() {
                return user == null ? null : () -> user;
            }

            @Override
            public String getRemoteUser() {
                return user;
            }

            @Override
            public boolean isUserInRole(String role) {
                return user != null && granted.contains(role);
            }
        }, response);
    }
}
