package dev.ratelimit.bench;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The HTTP bench's measure of an asynchronous filter's least cost: it asks nobody, but releases the
 * request's thread ({@code startAsync}) and has one other thread dispatch the request back, as a
 * filter that waited for Redis on a non-blocking connection would when the reply came. What this
 * row costs over no filter is what that design would spend before doing any Redis I/O, which the
 * blocking floor row includes.
 */
public final class AsyncHopFilter implements Filter {
    /** Stands for the thread a non-blocking Redis client would read its replies on. */
    private final ExecutorService replies = Executors.newSingleThreadExecutor(task -> {
        Thread thread = new Thread(task, "bench-async-hop");
        thread.setDaemon(true);
        return thread;
    });

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request.getDispatcherType() == DispatcherType.ASYNC) {
            chain.doFilter(request, response);
            return;
        }
        AsyncContext hop = request.startAsync();
        replies.execute(hop::dispatch);
    }

    @Override
    public void destroy() {
        replies.shutdownNow();
    }
}
