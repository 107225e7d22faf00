package dev.ratelimit.servlet.containers;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Test filter: before passing the request on it ADDS the response header named by init-param
 * {@code header} (default {@value #DEFAULT_HEADER}) with the init-param {@code value}; so several
 * stamps on one header show the chain order. With init-param {@code contextParam} it also sets
 * {@value #CONTEXT_PARAM_HEADER} to that context-param's value.
 */
public class HeaderStampFilter implements Filter {

    public static final String DEFAULT_HEADER = "X-Chain";
    public static final String CONTEXT_PARAM_HEADER = "X-Context-Param";

    private String header;
    private String value;
    private String contextParamValue;

    @Override
    public void init(FilterConfig config) throws ServletException {
        String h = config.getInitParameter("header");
        header = h == null ? DEFAULT_HEADER : h;
        value = config.getInitParameter("value");
        if (value == null) {
            throw new ServletException("init-param 'value' is required by filter '" + config.getFilterName() + "'");
        }
        String contextParam = config.getInitParameter("contextParam");
        contextParamValue = contextParam == null ? null : String.valueOf(config.getServletContext().getInitParameter(contextParam));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletResponse http = (HttpServletResponse) response;
        http.addHeader(header, value);
        if (contextParamValue != null) {
            http.setHeader(CONTEXT_PARAM_HEADER, contextParamValue);
        }
        chain.doFilter(request, response);
    }
}
