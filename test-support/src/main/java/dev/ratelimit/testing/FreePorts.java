package dev.ratelimit.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Free loopback ports for the servers tests start: never 6379, which belongs to someone else. */
public final class FreePorts {
    static final int FORBIDDEN_PORT = 6379;

    private FreePorts() {
    }

    /**
     * A port free on 127.0.0.1 right now. Another process may take it before the caller binds it:
     * callers that start a server retry on another port when that happens.
     */
    public static int pick() {
        for (int i = 0; i < 10; i++) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getByName(RedisProcessServer.HOST), 0));
                int candidate = socket.getLocalPort();
                if (candidate != FORBIDDEN_PORT) {
                    return candidate;
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot find a free port on " + RedisProcessServer.HOST + ": "
                        + e.getMessage(), e);
            }
        }
        throw new IllegalStateException("cannot find a free port on " + RedisProcessServer.HOST);
    }
}
