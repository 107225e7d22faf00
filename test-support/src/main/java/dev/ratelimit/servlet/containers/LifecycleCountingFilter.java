package dev.ratelimit.servlet.containers;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Test filter counting {@code init()} and {@code destroy()} calls per init-param {@code key}. */
public class LifecycleCountingFilter implements Filter {

    private static final Map<String, AtomicInteger> INITS = new ConcurrentHashMap<>();
    private static final Map<String, AtomicInteger> DESTROYS = new ConcurrentHashMap<>();

    private String key;

    public static int inits(String key) {
        return INITS.getOrDefault(key, new AtomicInteger()).get();
    }

    public static int destroys(String key) {
        return DESTROYS.getOrDefault(key, new AtomicInteger()).get();
    }

    @Override
    public void init(FilterConfig config) {
        key = String.valueOf(config.getInitParameter("key"));
        INITS.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        chain.doFilter(request, response);
    }

    @Override
    public void destroy() {
        DESTROYS.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    }
}
