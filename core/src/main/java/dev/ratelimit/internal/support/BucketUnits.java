package dev.ratelimit.internal.support;

import java.math.BigInteger;

/**
 * How the bucket scripts count exactly: tokens are integers in units of 1/scale of a permit, and
 * {@code rate} such units come back per microsecond, with scale = window / gcd(limit, window) and
 * rate = limit / gcd. So a retry at retry-after finds exactly enough, with no float drift.
 */
public final class BucketUnits {
    /** Units per permit. */
    public final long scale;
    /** Units refilled (or leaked) per microsecond. */
    public final long rate;

    private BucketUnits(long scale, long rate) {
        this.scale = scale;
        this.rate = rate;
    }

    public static BucketUnits of(long limit, long windowMicros) {
        long gcd = BigInteger.valueOf(limit).gcd(BigInteger.valueOf(windowMicros)).longValueExact();
        return new BucketUnits(windowMicros / gcd, limit / gcd);
    }
}
