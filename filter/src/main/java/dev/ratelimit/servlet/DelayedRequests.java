package dev.ratelimit.servlet;

import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.pipeline.RateLimitPipeline;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests of one {@link RateLimitFilter} that wait for their turn ({@code maxDelay}) without a
 * thread: each is suspended with {@link AsyncContext}, and one timer thread per filter dispatches it
 * again when its turn comes; the filter, mapped for the {@code ASYNC} dispatch too, then lets it
 * through as admitted ({@link #resumed}). A request the container ends before its turn (an async
 * error or timeout) gives its permits back. A client that merely closes its connection is not
 * reported by Tomcat or Jetty while nothing reads or writes, so its request runs at its turn, into
 * the closed connection.
 *
 * <p>The timer thread is the filter's: {@link #close} (the webapp stops) answers every request
 * still waiting with a 503, gives its permits back, and joins the thread, so an undeploy or a
 * redeploy leaves no thread and nothing that holds the webapp's class loader.
 */
final class DelayedRequests {
    private static final Logger log = LoggerFactory.getLogger(RateLimitFilter.class);
    /** How long {@link #close} waits for the timer thread to end a turn it is dispatching. */
    private static final long STOP_WAIT_MILLIS = 5_000;

    private final String filterName;
    private final RateLimitPipeline pipeline;
    /** The request attribute that carries a delayed request's {@link HeldRequest} to the dispatch its turn makes. */
    private final String attribute;
    private final ScheduledThreadPoolExecutor timer;
    private final RedispatchWatch redispatch;
    /** The requests waiting now, for {@link #close} to answer: {@code maxDelayed} at most. */
    private final Set<HeldRequest> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean failureLogged = new AtomicBoolean();
    private volatile boolean closed;
    /** The timer's thread, once it started: joined at {@link #close}, so none outlives the webapp. */
    private volatile Thread timerThread;

    /** @param descriptor what the webapp's {@code WEB-INF/web.xml} says of this filter's ASYNC dispatcher */
    DelayedRequests(String filterName, RateLimitPipeline pipeline, DescriptorDispatchers.Mapping descriptor) {
        this.filterName = filterName;
        this.pipeline = pipeline;
        this.redispatch = new RedispatchWatch(System::nanoTime, descriptor);
        if (redispatch.offFromStart()) {
            pipeline.checks().waiting().descriptorLacksAsync();
        }
        this.attribute = DelayedRequests.class.getName() + "." + filterName + "@"
                + Integer.toHexString(System.identityHashCode(this));
        AtomicInteger threads = new AtomicInteger();
        this.timer = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "ratelimit-delay-" + filterName + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            timerThread = thread;
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        // At close the turns still pending are answered by close itself, never run by the timer.
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Whether this request can wait here: it may go asynchronous, and delayed requests come back through the filter. */
    boolean canHold(HttpServletRequest request) {
        return !closed && redispatch.delaying() && request.isAsyncSupported() && !request.isAsyncStarted();
    }

    /** The delayed admission of a request whose turn came, dispatched back here; else null. */
    Admission resumed(ServletRequest request) {
        Object held = request.getAttribute(attribute);
        if (!(held instanceof HeldRequest)) {
            return null;
        }
        request.removeAttribute(attribute);
        if (!redispatch.proven()) {
            redispatch.seen();
            pipeline.checks().waiting().redispatched();
        }
        return ((HeldRequest) held).seenAgain();
    }

    /**
     * Suspends a request the pipeline admitted for an instant ahead, before anything is written on
     * its response.
     *
     * @return its async context, or null when the container will not let it go asynchronous after
     *     all: then the caller answers it as the denial it would have been
     *     ({@link RateLimitPipeline#refusedInstead})
     */
    AsyncContext suspend(ServletRequest request, ServletResponse response) {
        try {
            return request.startAsync(request, response);
        } catch (IllegalStateException cannot) {
            return null;
        }
    }

    /** Holds a suspended request ({@link #suspend}) until its turn, then dispatches it again. */
    void hold(AsyncContext async, HttpServletRequest request, HttpServletResponse response, Admission admission) {
        HeldRequest held = new HeldRequest(this, async, request, response, admission);
        waiting.add(held);
        try {
            held.turnIn(timer);
        } catch (RejectedExecutionException stopped) {
            // Closed meanwhile: answered just below.
        }
        if (closed) {
            // The webapp stopped while this one was being held; close may not have seen it.
            held.stop();
        }
    }

    /**
     * Tells the policy's checks why a request over the limit was refused rather than held, if it
     * could not be held: the filter is not mapped for ASYNC, or the servlet or a filter before this
     * one is not async-supported. They log it once and show it on the status page.
     */
    void refused(HttpServletRequest request) {
        if (!redispatch.delaying()) {
            pipeline.checks().waiting().notRedispatched();
        }
        if (!request.isAsyncSupported()) {
            pipeline.checks().waiting().refusedNotAsync(() -> request.getRequestURI() + " (servlet '" + servletName(request) + "')");
        }
    }

    /**
     * The webapp stops: every request still waiting is answered 503 with its permits given back, and
     * the timer thread is stopped and joined.
     */
    void close() {
        closed = true;
        timer.shutdown();
        for (HeldRequest held : waiting) {
            held.stop();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MILLIS);
        try {
            // The executor reports termination from inside its last thread: join that thread too.
            boolean stopped = timer.awaitTermination(STOP_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            Thread thread = timerThread;
            if (thread != null) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                stopped &= !thread.isAlive();
            }
            if (!stopped) {
                log.warn("RateLimitFilter '{}': the thread that resumes waiting requests (maxDelay) did not stop within"
                        + " {} ms of the webapp stopping; it ends once the request it is resuming does.", filterName,
                        STOP_WAIT_MILLIS);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // What a held request needs of its filter.

    RateLimitPipeline pipeline() {
        return pipeline;
    }

    String attribute() {
        return attribute;
    }

    /** A held request's wait is over, one way or another: {@link #close} has nothing left to answer for it. */
    void over(HeldRequest held) {
        waiting.remove(held);
    }

    /** A held request came back at its turn and completed without passing this filter again. */
    void unseen() {
        if (redispatch.unseen()) {
            pipeline.checks().waiting().notRedispatched();
        }
    }

    /** The container would not resume a request at its turn: logged once at WARN, later ones at DEBUG. */
    void resumeFailed(Throwable failure) {
        if (failureLogged.compareAndSet(false, true)) {
            log.warn("RateLimitFilter '{}': a request that waited for its turn (maxDelay) could not be resumed, so it was"
                    + " answered 503 and its turn given back ({}). Logged once; later ones at DEBUG.", filterName,
                    failure.toString(), failure);
        } else {
            log.debug("RateLimitFilter '{}': a request that waited for its turn could not be resumed", filterName, failure);
        }
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
}
