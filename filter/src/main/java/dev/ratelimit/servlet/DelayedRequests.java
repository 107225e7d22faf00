package dev.ratelimit.servlet;

import dev.ratelimit.http.answer.Admission;
import dev.ratelimit.http.pipeline.RateLimitPipeline;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests of one {@link RateLimitFilter} that wait for their turn ({@code maxDelay}) without a
 * thread: each is suspended with {@link AsyncContext}, and one timer thread per filter dispatches it
 * again when its turn comes; the filter, mapped for the {@code ASYNC} dispatch too, then lets it
 * through as admitted ({@link #resumed}). A request the container ends before its turn (an async
 * error or timeout) gives its permits back. A client that merely closes its connection is not
 * reported by Tomcat or Jetty while nothing reads or writes, so its request runs at its turn, into
 * the closed connection. The timer thread is the filter's and stops with it.
 */
final class DelayedRequests {
    /**
     * How long past its turn a waiting request may go unanswered before the container's async
     * timeout ends it (answered 503): only a timer far behind, on a machine in trouble, gets there.
     */
    private static final long GRACE_MILLIS = 30_000;

    private final RateLimitPipeline pipeline;
    /** The request attribute that carries a delayed request's {@link Waiter} to the dispatch its turn makes. */
    private final String attribute;
    private final ScheduledThreadPoolExecutor timer;
    /** Cleared, for good, when a delayed request came back without passing this filter again. */
    private volatile boolean mappedForAsync = true;

    DelayedRequests(String filterName, RateLimitPipeline pipeline) {
        this.pipeline = pipeline;
        this.attribute = DelayedRequests.class.getName() + "." + filterName + "@"
                + Integer.toHexString(System.identityHashCode(this));
        AtomicInteger threads = new AtomicInteger();
        this.timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "ratelimit-delay-" + filterName + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /** Whether this request can wait here: it may go asynchronous, and delayed requests come back through the filter. */
    boolean canHold(HttpServletRequest request) {
        return mappedForAsync && request.isAsyncSupported() && !request.isAsyncStarted();
    }

    /** The delayed admission of a request whose turn came, dispatched back here; else null. */
    Admission resumed(ServletRequest request) {
        Object waiter = request.getAttribute(attribute);
        if (!(waiter instanceof Waiter)) {
            return null;
        }
        request.removeAttribute(attribute);
        ((Waiter) waiter).seenAgain = true;
        return ((Waiter) waiter).admission;
    }

    /**
     * Suspends a delayed admission's request until its turn, then dispatches it again. A request the
     * container will not let go asynchronous after all gives its turn back and is refused: run now,
     * it would pass the limit.
     */
    void hold(HttpServletRequest request, HttpServletResponse response, Admission admission) throws IOException {
        long delayNanos = admission.decision().delay().toNanos();
        AsyncContext async;
        try {
            async = request.startAsync(request, response);
        } catch (IllegalStateException cannot) {
            pipeline.waitOver(admission, false);
            response.setHeader("Retry-After", Long.toString(Math.max(1, TimeUnit.NANOSECONDS.toSeconds(delayNanos + 999_999_999))));
            response.sendError(admission.denialStatus());
            return;
        }
        async.setTimeout(TimeUnit.NANOSECONDS.toMillis(delayNanos) + GRACE_MILLIS);
        Waiter waiter = new Waiter(async, request, response, admission);
        async.addListener(waiter);
        waiter.turn = timer.schedule(waiter::turnCame, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Tells the policy's checks why a request over the limit was refused rather than held, if it
     * could not be held: the filter is not mapped for ASYNC, or the servlet or a filter before this
     * one is not async-supported. They log it once and show it on the status page.
     */
    void refused(HttpServletRequest request) {
        if (!mappedForAsync) {
            pipeline.checks().notRedispatched();
        }
        if (!request.isAsyncSupported()) {
            pipeline.checks().refusedNotAsync(() -> request.getRequestURI() + " (servlet '" + servletName(request) + "')");
        }
    }

    /** Stops the timer; requests still waiting end by the container's async timeout. */
    void close() {
        timer.shutdownNow();
    }

    /** The servlet whose mapping takes the request, as far as Servlet 3.1 lets it be found; else "?". */
    private static String servletName(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String fallback = "?";
        for (Map.Entry<String, ? extends ServletRegistration> servlet
                : request.getServletContext().getServletRegistrations().entrySet()) {
            Collection<String> mappings = servlet.getValue().getMappings();
            if (mappings.contains(servletPath) || mappings.contains(servletPath + "/*")) {
                return servlet.getKey();
            }
            if (mappings.contains("/") || mappings.contains("/*")) {
                fallback = servlet.getKey();
            }
        }
        return fallback;
    }

    /** One waiting request: its turn, or its end before it, whichever comes first, and once. */
    private final class Waiter implements AsyncListener {
        private final AsyncContext async;
        private final HttpServletRequest request;
        private final HttpServletResponse response;
        private final Admission admission;
        private final AtomicBoolean over = new AtomicBoolean();
        /**
         * After its turn: counts the dispatch returning and the request completing, which the
         * container may report in either order (the dispatched request can run and complete on
         * another thread before {@code dispatch()} returns); the second of them judges whether the
         * filter saw the request again.
         */
        private final AtomicInteger afterTurn = new AtomicInteger();
        /** Set when the filter sees the request again on the dispatch its turn made ({@link #resumed}). */
        private volatile boolean seenAgain;
        private volatile ScheduledFuture<?> turn;

        Waiter(AsyncContext async, HttpServletRequest request, HttpServletResponse response, Admission admission) {
            this.async = async;
            this.request = request;
            this.response = response;
            this.admission = admission;
        }

        void turnCame() {
            if (!over.compareAndSet(false, true)) {
                return;
            }
            pipeline.waitOver(admission, true);
            request.setAttribute(attribute, this);
            try {
                async.dispatch();
            } catch (IllegalStateException alreadyOver) {
                // The request ended meanwhile (its object may already serve another): nothing is
                // left to run, and nothing to judge.
                return;
            }
            if (afterTurn.incrementAndGet() == 2) {
                judgeRedispatch();
            }
        }

        /**
         * Dispatched and complete, yet this filter never saw it again: it is not mapped for ASYNC.
         * Judged by a flag of its own, not the request's attribute: a request that completed may
         * already be recycled for another.
         */
        private void judgeRedispatch() {
            if (!seenAgain) {
                mappedForAsync = false;
                pipeline.checks().notRedispatched();
            }
        }

        /** Before its turn: the request will not run, so its permits go back for the next in line. */
        private boolean endedBeforeTurn() {
            if (!over.compareAndSet(false, true)) {
                return false;
            }
            ScheduledFuture<?> pending = turn;
            if (pending != null) {
                pending.cancel(false);
            }
            pipeline.waitOver(admission, false);
            return true;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            if (!endedBeforeTurn() && afterTurn.incrementAndGet() == 2) {
                judgeRedispatch();
            }
        }

        @Override
        public void onError(AsyncEvent event) {
            endedBeforeTurn();
        }

        @Override
        public void onTimeout(AsyncEvent event) throws IOException {
            if (endedBeforeTurn()) {
                response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
                async.complete();
            }
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // A servlet going asynchronous after its turn: nothing of this wait is left to do.
        }
    }
}
