package dev.ratelimit.servlet;

import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.answer.HttpAnswer;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request waiting for its turn ({@code maxDelay}): its turn, or its end before it (the
 * container ends it, or the webapp stops), whichever comes first, and once. Every way out settles
 * the admission exactly once: the request runs with its permits, or it is answered without running
 * and its permits go back.
 */
final class HeldRequest implements AsyncListener {
    /**
     * How long past its turn a waiting request may go unanswered before the container's async
     * timeout ends it (answered 503): only a timer far behind, on a machine in trouble, gets there.
     */
    private static final long GRACE_MILLIS = 30_000;

    private final DelayedRequests delays;
    private final AsyncContext async;
    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final Admission admission;
    private final long turnAtNanos;
    private final AtomicBoolean over = new AtomicBoolean();
    /**
     * After its turn: counts the dispatch returning and the request completing, which the container
     * may report in either order (the dispatched request can run and complete on another thread
     * before {@code dispatch()} returns); the second of them judges whether the filter saw the
     * request again.
     */
    private final AtomicInteger afterTurn = new AtomicInteger();
    /** Set when the filter sees the request again on the dispatch its turn made. */
    private volatile boolean seenAgain;
    private volatile ScheduledFuture<?> turn;

    HeldRequest(DelayedRequests delays, AsyncContext async, HttpServletRequest request, HttpServletResponse response,
            Admission admission) {
        this.delays = delays;
        this.async = async;
        this.request = request;
        this.response = response;
        this.admission = admission;
        long delayNanos = admission.decision().delay().toNanos();
        this.turnAtNanos = System.nanoTime() + delayNanos;
        async.setTimeout(TimeUnit.NANOSECONDS.toMillis(delayNanos) + GRACE_MILLIS);
        async.addListener(this);
    }

    /** Schedules the turn on the filter's timer. */
    void turnIn(ScheduledExecutorService timer) {
        turn = timer.schedule(this::turnCame, turnAtNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    /** The filter saw the request again, on the dispatch its turn made: on as admitted. */
    Admission seenAgain() {
        seenAgain = true;
        return admission;
    }

    private void turnCame() {
        if (!over.compareAndSet(false, true)) {
            return;
        }
        delays.over(this);
        // Before the dispatch: the request may run, and its client read the status page, before dispatch() returns.
        delays.pipeline().waitOver(admission, true);
        try {
            request.setAttribute(delays.attribute(), this);
            async.dispatch();
        } catch (IllegalStateException ended) {
            // The request ended meanwhile (its object may already serve another): it will not run,
            // and there is nothing to judge or to answer.
            delays.pipeline().notRunAfterAll(admission);
            return;
        } catch (RuntimeException | LinkageError failed) {
            // A request wrapper or the container failed: without this, the request would wait for its
            // async timeout, be answered 500 and keep its permits.
            delays.pipeline().notRunAfterAll(admission);
            delays.resumeFailed(failed);
            answerUnavailable("The server could not resume the request");
            return;
        }
        if (afterTurn.incrementAndGet() == 2) {
            judgeRedispatch();
        }
    }

    /** The webapp stops before its turn: answered 503, its permits given back. */
    void stop() {
        if (endedBeforeTurn()) {
            answerUnavailable("The server stopped the application");
        }
    }

    /** Dispatched and complete, yet the filter never saw it again (judged by a flag of its own: a completed request may be recycled). */
    private void judgeRedispatch() {
        if (!seenAgain) {
            delays.unseen();
        }
    }

    /** Before its turn: the request will not run, so its permits go back. */
    private boolean endedBeforeTurn() {
        if (!over.compareAndSet(false, true)) {
            return false;
        }
        delays.over(this);
        ScheduledFuture<?> pending = turn;
        if (pending != null) {
            pending.cancel(false);
        }
        delays.pipeline().waitOver(admission, false);
        return true;
    }

    /**
     * Answers 503 with {@code Retry-After} (until its turn would have come, at least a second) and a
     * problem+json body saying why, then completes the request. Never throws: a client already gone
     * or a container already stopping leaves nothing more to say.
     */
    private void answerUnavailable(String why) {
        try {
            if (!response.isCommitted()) {
                long retryAfter = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(turnAtNanos - System.nanoTime() + 999_999_999));
                byte[] body = delays.pipeline().answer().waitEndedJson(why, retryAfter)
                        .getBytes(StandardCharsets.UTF_8);
                response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
                response.setHeader("Retry-After", Long.toString(retryAfter));
                response.setContentType(HttpAnswer.PROBLEM_JSON);
                response.setCharacterEncoding("UTF-8");
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
            }
        } catch (IOException | RuntimeException gone) {
            // Nothing more can be said to this client.
        } finally {
            try {
                async.complete();
            } catch (IllegalStateException alreadyOver) {
                // Completed or recycled meanwhile.
            }
        }
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
    public void onTimeout(AsyncEvent event) {
        if (endedBeforeTurn()) {
            answerUnavailable("The server did not resume the request in time");
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // A servlet going asynchronous after its turn: nothing of this wait is left to do.
    }
}
