package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.support.Durations;
import java.time.Duration;

/**
 * How a policy lets requests over its limit wait for their turn instead of refusing them:
 * {@code maxDelay}, the longest wait, and {@code maxDelayed}, how many requests of the policy may
 * wait on one node at once. Immutable; checked by {@link SettingGroups#waiting}.
 */
public final class Waiting {
    private final Duration maxDelay;
    private final int maxDelayed;

    Waiting(Duration maxDelay, int maxDelayed) {
        this.maxDelay = maxDelay;
        this.maxDelayed = maxDelayed;
    }

    /** The longest a request may wait for its turn. */
    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * The most requests of the policy waiting on this node at once. Each holds a connection of the
     * server's (not a thread): past it, a request over the limit is refused as without maxDelay.
     */
    public int maxDelayed() {
        return maxDelayed;
    }

    @Override
    public String toString() {
        return "maxDelay " + Durations.format(maxDelay) + ", maxDelayed " + maxDelayed;
    }
}
