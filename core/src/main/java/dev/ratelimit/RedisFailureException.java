package dev.ratelimit;

/**
 * Redis could not be asked or did not answer properly: a timeout, a lost connection, an error
 * reply. The one unchecked exception the core throws for infrastructure trouble; it keeps the
 * original cause. A denial is never an exception: it is a {@link Decision}.
 */
public class RedisFailureException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was being done, without secrets
     * @param cause the client's exception
     */
    public RedisFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
