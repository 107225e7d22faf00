package dev.ratelimit.internal.claim;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrency lease ids for {@code concurrency.lua}: {@code lease:<limiter>:<n>}, a random part drawn once per
 * limiter (122 random bits: two nodes, or two limiters of one policy, never share it) and a counter.
 * Unique members matter: a lease added twice under one name would count once and be released by
 * either request. The {@code lease:} prefix is how the script tells its own state from another
 * algorithm's. Thread-safe.
 */
public final class ConcurrencyLeaseIds {
    private final String prefix = "lease:" + UUID.randomUUID().toString().replace("-", "") + ":";
    private final AtomicLong next = new AtomicLong();

    public String next() {
        return prefix + next.incrementAndGet();
    }
}
