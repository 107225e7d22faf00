package dev.ratelimit;

import dev.ratelimit.internal.support.RedisRefusals;

/**
 * Redis could not be asked or did not answer properly: a timeout, a lost connection, an error
 * reply. The one unchecked exception the core throws for infrastructure trouble; it keeps the
 * original cause. A denial is never an exception: it is a {@link Decision}.
 */
public class RedisFailureException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean redisAnswered;

    /**
     * A failure to reach Redis: a timeout, a refused or lost connection, no pooled connection.
     *
     * @param message what was being done, without secrets
     * @param cause the client's exception
     */
    public RedisFailureException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /**
     * @param message what was being done, without secrets
     * @param cause the client's exception
     * @param redisAnswered true when Redis answered with an error (it is up, but refused the
     *     command), false when it could not be reached
     */
    public RedisFailureException(String message, Throwable cause, boolean redisAnswered) {
        super(message, cause);
        this.redisAnswered = redisAnswered;
    }

    /** Whether Redis answered with an error rather than not answering at all. */
    public boolean redisAnswered() {
        return redisAnswered;
    }

    /**
     * What an operator must change when Redis refused for a reason waiting will not cure: a user
     * without the right to run scripts ({@code NOPERM}), wrong credentials, a command this Redis
     * does not know, a key of ours holding another kind of value. Null for an outage (a timeout, a
     * lost connection, a failover): that may pass by itself.
     */
    public String remedy() {
        return RedisRefusals.remedy(this);
    }
}
