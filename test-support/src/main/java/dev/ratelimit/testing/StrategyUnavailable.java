package dev.ratelimit.testing;

/** A strategy that does not apply on this machine; the next one is tried. */
final class StrategyUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StrategyUnavailable(String message) {
        super(message);
    }

    StrategyUnavailable(String message, Throwable cause) {
        super(message, cause);
    }
}
