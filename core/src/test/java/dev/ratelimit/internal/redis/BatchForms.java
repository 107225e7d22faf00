package dev.ratelimit.internal.redis;

/** Lets tests outside the package run a limiter script's batch form (limiter-batch.lua) themselves. */
public final class BatchForms {
    private BatchForms() {
    }

    public static LuaScript of(LuaScript limiter) {
        return limiter.batchForm();
    }
}
