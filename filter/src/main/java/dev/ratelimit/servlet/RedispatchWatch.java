package dev.ratelimit.servlet;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Whether delayed requests come back through the filter at their turn, that is, whether the filter
 * is mapped for the {@code ASYNC} dispatcher, judged from what the held requests show.
 *
 * <p>The Servlet API does not let a filter read its own mapping's dispatchers. Two kinds of evidence
 * cannot be faked: the webapp's {@code WEB-INF/web.xml} ({@link DescriptorDispatchers}), read at
 * startup, and a held request that reached the filter again on its {@code ASYNC} dispatch; either
 * proves the mapping for the webapp's life, and a descriptor that maps the filter without ASYNC
 * switches delaying off from the start. Without a word from the descriptor, a request that came
 * back without passing the filter proves nothing on its own: an application filter mapped ahead
 * for {@code ASYNC} may have answered that dispatch itself (an expired login, a CSRF check, a
 * maintenance page). So delaying is switched off only after {@value #UNSEEN_TO_JUDGE} held
 * requests in a row came back unseen while none was ever seen, and never for good: after
 * {@link #RETRY_NANOS} requests are held again, and one seen then proves the mapping.
 *
 * <p>Thread-safe; a fixed number of fields.
 */
final class RedispatchWatch {
    /** Held requests in a row that must come back unseen before delaying is switched off. */
    static final int UNSEEN_TO_JUDGE = 3;
    /** How long delaying stays off before requests are held again, to look once more. */
    static final long RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final LongSupplier clock;
    /** Set for good once a held request passed the filter again. */
    private volatile boolean proven;
    /** Held requests that came back unseen since the last one seen (or since start). */
    private final AtomicInteger unseenInARow = new AtomicInteger();
    private volatile boolean off;
    private volatile long offSince;

    /** @param descriptor what {@code WEB-INF/web.xml} says of the filter's ASYNC dispatcher */
    RedispatchWatch(LongSupplier clock, DescriptorDispatchers.Mapping descriptor) {
        this.clock = clock;
        if (descriptor == DescriptorDispatchers.Mapping.ASYNC) {
            proven = true;
        } else if (descriptor == DescriptorDispatchers.Mapping.NOT_ASYNC) {
            // As if judged already: a minute from now one held request looks again, in case code
            // or a web-fragment added the ASYNC mapping the descriptor lacks.
            unseenInARow.set(UNSEEN_TO_JUDGE);
            offSince = clock.getAsLong();
            off = true;
        }
    }

    /** Whether delaying starts switched off: the descriptor maps the filter without ASYNC. */
    boolean offFromStart() {
        return off;
    }

    /** Whether requests over the limit may be held now. */
    boolean delaying() {
        if (proven || !off) {
            return true;
        }
        if (clock.getAsLong() - offSince >= RETRY_NANOS) {
            // Look again: the next held request that comes back unseen switches it off at once.
            off = false;
            return true;
        }
        return false;
    }

    /** A held request passed the filter again on its turn's dispatch: the mapping is proven. */
    void seen() {
        proven = true;
        off = false;
        unseenInARow.set(0);
    }

    /** Whether a request passed the filter again since start: then {@link #unseen} never judges. */
    boolean proven() {
        return proven;
    }

    /**
     * A held request was dispatched at its turn and completed without passing the filter again.
     *
     * @return whether this switched delaying off
     */
    boolean unseen() {
        if (proven || unseenInARow.incrementAndGet() < UNSEEN_TO_JUDGE || off) {
            return false;
        }
        offSince = clock.getAsLong();
        off = true;
        return !proven;
    }
}
