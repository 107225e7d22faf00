package dev.ratelimit.bench;

/** The shapes of traffic every limiter is measured under. */
enum Traffic {
    /** 10,000 distinct clients, all admitted. */
    DISTINCT,
    /** One client, always admitted. */
    HOT_ADMITTED,
    /** One client over its limit, always denied. */
    HOT_DENIED;

    static final int DISTINCT_KEYS = 10_000;
}
