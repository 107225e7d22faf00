package dev.ratelimit.servlet;

import dev.ratelimit.http.Usage;
import dev.ratelimit.internal.http.answer.Admission;
import dev.ratelimit.internal.http.pipeline.RateLimitPipeline;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Calls {@link RateLimitPipeline#after} for a request that went asynchronous, when it really ends:
 * completed, failed (the container's onError, a client gone away among others) or timed out,
 * whichever comes first, and only then: a container reports a timeout or an error and then the
 * completion, and a {@code concurrency} lease must be given back once. A request started
 * asynchronous again (after a dispatch) keeps this listener, as the Servlet spec asks of listeners
 * that want the later events. The usage the handler reported ({@code chargeAfter}) is read then,
 * since an asynchronous handler learns its cost only as it completes.
 */
final class AfterAsync implements AsyncListener {
    private final RateLimitPipeline pipeline;
    private final Admission admission;
    private final ServletRequest request;
    private final HttpServletResponse response;
    private final AtomicBoolean done = new AtomicBoolean();

    AfterAsync(RateLimitPipeline pipeline, Admission admission, ServletRequest request, HttpServletResponse response) {
        this.pipeline = pipeline;
        this.admission = admission;
        this.request = request;
        this.response = response;
    }

    /** Once, whoever calls first. */
    void end() {
        if (done.compareAndSet(false, true)) {
            pipeline.after(admission, response.getStatus(), request.getAttribute(Usage.ATTRIBUTE));
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        end();
    }

    @Override
    public void onError(AsyncEvent event) {
        end();
    }

    @Override
    public void onTimeout(AsyncEvent event) {
        end();
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        event.getAsyncContext().addListener(this);
    }
}
