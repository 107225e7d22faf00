package dev.ratelimit.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A slow handler that counts the requests it serves at once, on every container of the test JVM
 * together (static: the nodes under test are in one JVM), and keeps the highest count. Requests
 * wait on a gate the test opens, so "slow" is as long as the test wants and nothing sleeps.
 * {@code ?mode=}: {@code hold} (wait, answer), {@code throw} (fail), {@code async} (wait on another
 * thread, answer, complete), {@code async-timeout} (go asynchronous and never complete).
 */
public class InFlightServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final AtomicInteger inFlight = new AtomicInteger();
    static final AtomicInteger highWater = new AtomicInteger();
    /** Dispatches of {@code async} requests that have returned to the container. */
    static final AtomicInteger asyncDispatchesReturned = new AtomicInteger();
    private static volatile CountDownLatch gate = new CountDownLatch(0);

    /** A closed gate and fresh counts. */
    static void reset() throws InterruptedException {
        gate.countDown();
        // Requests a failed test left held finish now: wait for them, or they would count down this
        // test's numbers after it has set them to zero (one failure would fail the next test too).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        gate = new CountDownLatch(1);
        inFlight.set(0);
        highWater.set(0);
        asyncDispatchesReturned.set(0);
    }

    static void open() {
        gate.countDown();
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String mode = String.valueOf(request.getParameter("mode"));
        switch (mode) {
            case "throw":
                enter();
                try {
                    throw new IllegalStateException("the handler failed");
                } finally {
                    inFlight.decrementAndGet();
                }
            case "async": {
                AsyncContext async = request.startAsync();
                async.setTimeout(30_000);
                enter();
                CountDownLatch waitingFor = gate;
                new Thread(() -> {
                    try {
                        waitUntilOpen(waitingFor);
                        async.getResponse().getWriter().write("served asynchronously");
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    } finally {
                        inFlight.decrementAndGet();
                        async.complete();
                    }
                }, "in-flight-async").start();
                asyncDispatchesReturned.incrementAndGet();
                return;
            }
            case "async-timeout":
                request.startAsync().setTimeout(300);
                return;
            default:
                enter();
                try {
                    waitUntilOpen(gate);
                    response.getWriter().write("served");
                } finally {
                    inFlight.decrementAndGet();
                }
        }
    }

    private static void enter() {
        int now = inFlight.incrementAndGet();
        highWater.accumulateAndGet(now, Math::max);
    }

    private static void waitUntilOpen(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never opened the gate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
