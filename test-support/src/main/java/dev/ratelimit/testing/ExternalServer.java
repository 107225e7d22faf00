package dev.ratelimit.testing;

/** A shared server named by REDIS_URL: never flushed, configured, stopped or restarted. */
final class ExternalServer implements ServerHandle {

    private final String uri;
    private final String host;
    private final int port;

    ExternalServer(String uri, String host, int port) {
        this.uri = uri;
        this.host = host;
        this.port = port;
    }

    @Override
    public String uri() {
        return uri;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public boolean owned() {
        return false;
    }

    @Override
    public String description() {
        return "shared server, not owned: only keys under the prefix are touched";
    }

    @Override
    public void kill() {
        throw new IllegalStateException("a shared REDIS_URL server is never stopped");
    }

    @Override
    public void restart() {
        throw new IllegalStateException("a shared REDIS_URL server is never restarted");
    }

    @Override
    public void close() {
        // not ours
    }
}
