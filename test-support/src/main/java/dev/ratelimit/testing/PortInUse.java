package dev.ratelimit.testing;

/** redis-server could not bind its port: another process took it between the probe and the bind. */
final class PortInUse extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PortInUse(String message) {
        super(message);
    }
}
