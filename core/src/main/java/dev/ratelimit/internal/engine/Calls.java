package dev.ratelimit.internal.engine;

/** The calls of one decision, in order: a single decision's {@link Call} is its own list of one. */
interface Calls {
    int size();

    Call get(int index);

    /** Whether these are a batch's ({@code tryAcquireAll}): sent in one pipeline, never lent to. */
    boolean batch();
}
