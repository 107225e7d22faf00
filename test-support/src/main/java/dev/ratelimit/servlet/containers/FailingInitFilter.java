package dev.ratelimit.servlet.containers;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;

/** Test filter whose {@code init()} throws {@code ServletException(init-param "message")}. */
public class FailingInitFilter implements Filter {

    @Override
    public void init(FilterConfig config) throws ServletException {
        throw new ServletException(config.getInitParameter("message"));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        throw new ServletException("FailingInitFilter must never filter a request");
    }
}
