package dev.ratelimit.testing;

/** A Redis server obtained by one {@link ServerStrategy}. */
interface ServerHandle {

    /** @return e.g. {@code redis://127.0.0.1:34567} */
    String uri();

    String host();

    int port();

    /** @return true when the extension started this server and may stop / restart / discard it */
    boolean owned();

    /** @return a short human description for the log line, e.g. "started pid 1234" */
    String description();

    /** Kills the server; its port then refuses connections. No-op when already stopped. */
    void kill();

    /** Starts the server again on the same port and waits for PING. No-op when it answers already. */
    void restart();

    /** Discards the server and everything it left behind (process, container, temp dirs). Never throws. */
    void close();
}
