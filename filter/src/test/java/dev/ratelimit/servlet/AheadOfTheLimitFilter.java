package dev.ratelimit.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * An application filter mapped ahead of the rate limit filter, as the webapps it is added to have
 * them; init-param {@code mode}:
 * <ul>
 * <li>{@code expired-login}: on an {@code ASYNC} dispatch of a request carrying {@code X-Expired},
 * answers 401 itself (a login that expired while the request waited), so the rate limit filter
 * never sees that dispatch;
 * <li>{@code failing-attributes}: passes on a request wrapper whose {@code setAttribute} throws for
 * the attribute that carries a held request to its turn (a framework's attribute store failing);
 * <li>{@code refuses-async}: passes on a request wrapper whose {@code startAsync} throws, as a
 * container does for a request it will not suspend.
 * </ul>
 */
public class AheadOfTheLimitFilter implements Filter {
    private String mode;

    @Override
    public void init(FilterConfig config) {
        mode = config.getInitParameter("mode");
    }

    @Override
    public void destroy() {
        // nothing held
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if ("expired-login".equals(mode)) {
            if (request.getDispatcherType() == DispatcherType.ASYNC && http.getHeader("X-Expired") != null) {
                ((HttpServletResponse) response).sendError(401);
                return;
            }
            chain.doFilter(request, response);
        } else if ("failing-attributes".equals(mode)) {
            chain.doFilter(new HttpServletRequestWrapper(http) {
                @Override
                public void setAttribute(String name, Object value) {
                    if (name.startsWith("dev.ratelimit.servlet.DelayedRequests")) {
                        throw new IllegalArgumentException("attribute store refused " + name);
                    }
                    super.setAttribute(name, value);
                }
            }, response);
        } else if ("refuses-async".equals(mode)) {
            chain.doFilter(new HttpServletRequestWrapper(http) {
                @Override
                public AsyncContext startAsync(ServletRequest wrapped, ServletResponse response) {
                    throw new IllegalStateException("this request cannot go asynchronous");
                }
            }, response);
        } else {
            throw new ServletException("unknown mode " + mode);
        }
    }
}
