package dev.ratelimit.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy between a client and one server, in the spirit of toxiproxy, whose faults are switched
 * while connections flow. It listens on a free loopback port ({@link #host()}, {@link #port()}) and
 * forwards to {@code target}, with plain sockets and a thread each way per connection (and, once a
 * fault has held a chunk, a second one that passes the held chunks on).
 *
 * <ul>
 *   <li>{@link #latency(Duration)}: every chunk, in both directions, is passed on that long after it
 *       arrived, as a slow network would: chunks in flight are held together, not one after another,
 *       so a message costs the latency once however many reads it took the proxy to take it in.</li>
 *   <li>{@link #blackhole()}: connections are accepted and read, but nothing is passed on or answered:
 *       a caller waits for its own timeout. What was read is held, and passed on after {@link #heal()},
 *       as TCP would after a partition.</li>
 *   <li>{@link #reset()}: every open connection is closed with an RST (SO_LINGER 0), and each new one
 *       at once the same way.</li>
 *   <li>{@link #refuse()}: the port stops listening (a connect is refused) and open connections are
 *       closed.</li>
 *   <li>{@link #heal()}: transparent forwarding again, on the same port; connections still open
 *       carry on.</li>
 * </ul>
 *
 * <p>{@link #close()} ends every connection and waits for every thread the proxy started.
 */
public final class FaultProxy implements AutoCloseable {
    private enum Mode { FORWARD, BLACKHOLE, RESET, REFUSE, CLOSED }

    private final InetSocketAddress target;
    private final InetAddress loopback = InetAddress.getLoopbackAddress();
    private final int port;
    private final Set<ProxyLink> links = ConcurrentHashMap.newKeySet();
    private final ProxyThreads threads = new ProxyThreads();
    private final AtomicLong accepted = new AtomicLong();
    private final Object lock = new Object();
    private Mode mode = Mode.FORWARD;
    private long latencyNanos;
    private ServerSocket listening;

    /** Starts forwarding from a free loopback port to {@code host:port}. */
    public FaultProxy(String host, int port) {
        this.target = new InetSocketAddress(host, port);
        try {
            this.listening = listen(0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on a free loopback port", e);
        }
        this.port = listening.getLocalPort();
        startAccepting(listening);
    }

    /** The host clients connect to. */
    public String host() {
        return loopback.getHostAddress();
    }

    /** The port clients connect to; the same for the proxy's whole life. */
    public int port() {
        return port;
    }

    /** {@code redis://host:port} of the proxy. */
    public String redisUri() {
        return "redis://" + host() + ":" + port;
    }

    /** Connections accepted so far, refused and reset ones included. */
    public long connectionsAccepted() {
        return accepted.get();
    }

    /** Connections open now. */
    public int openConnections() {
        return links.size();
    }

    /** Passes every chunk, both ways, on this long after it arrived; zero for none. */
    public FaultProxy latency(Duration latency) {
        synchronized (lock) {
            latencyNanos = latency.toNanos();
            lock.notifyAll();
        }
        return this;
    }

    /** Accepts and reads, but passes nothing on and answers nothing, until {@link #heal()}. */
    public FaultProxy blackhole() {
        return switchTo(Mode.BLACKHOLE);
    }

    /** The same as {@link #blackhole()}: packets dropped on the floor. */
    public FaultProxy drop() {
        return blackhole();
    }

    /** Resets every open connection (RST), and each new one at once, until {@link #heal()}. */
    public FaultProxy reset() {
        switchTo(Mode.RESET);
        for (ProxyLink link : links) {
            link.close(true);
        }
        return this;
    }

    /** Stops listening (a connect is refused) and closes the open connections, until {@link #heal()}. */
    public FaultProxy refuse() {
        ServerSocket closing;
        synchronized (lock) {
            closing = listening;
            listening = null;
        }
        switchTo(Mode.REFUSE);
        ProxyLink.closeQuietly(closing);
        for (ProxyLink link : links) {
            link.close(false);
        }
        return this;
    }

    /** Transparent forwarding again, without latency; connections still open carry on. */
    public FaultProxy heal() {
        ServerSocket reopened = null;
        synchronized (lock) {
            if (mode == Mode.CLOSED) {
                throw new IllegalStateException("closed");
            }
            if (listening == null) {
                try {
                    listening = listen(port);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot listen on port " + port + " again", e);
                }
                reopened = listening;
            }
            mode = Mode.FORWARD;
            latencyNanos = 0;
            lock.notifyAll();
        }
        if (reopened != null) {
            startAccepting(reopened);
        }
        return this;
    }

    /** Closes the port and every connection, and waits for the proxy's threads to end. */
    @Override
    public void close() {
        ServerSocket closing;
        synchronized (lock) {
            if (mode == Mode.CLOSED) {
                return;
            }
            mode = Mode.CLOSED;
            closing = listening;
            listening = null;
            lock.notifyAll();
        }
        ProxyLink.closeQuietly(closing);
        threads.endAll(() -> links.forEach(link -> link.close(false)));
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "FaultProxy " + host() + ":" + port + " -> " + target + " (" + mode
                    + (latencyNanos > 0 ? ", latency " + latencyNanos / 1_000_000 + "ms" : "") + ")";
        }
    }

    private FaultProxy switchTo(Mode next) {
        synchronized (lock) {
            if (mode == Mode.CLOSED) {
                throw new IllegalStateException("closed");
            }
            mode = next;
            lock.notifyAll();
        }
        return this;
    }

    /** Forwarding with no latency: a chunk of an open link need not be held. */
    boolean passesAtOnce() {
        synchronized (lock) {
            return mode == Mode.FORWARD && latencyNanos == 0;
        }
    }

    /** Whether connections are being reset, so that a link that breaks now ends with an RST too. */
    boolean resetting() {
        return mode() == Mode.RESET;
    }

    /** A link ended: forgotten, and whoever waits on a fault looks again. */
    void unlink(ProxyLink link) {
        links.remove(link);
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private Mode mode() {
        synchronized (lock) {
            return mode;
        }
    }

    private ServerSocket listen(int onPort) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(loopback, onPort), 128);
        return socket;
    }

    private void startAccepting(ServerSocket socket) {
        start("fault-proxy-" + port + "-accept", () -> accept(socket));
    }

    /** Starts a daemon thread of the proxy, which {@link #close()} waits for. */
    void start(String name, Runnable body) {
        threads.start(name, body);
    }

    private void accept(ServerSocket socket) {
        while (true) {
            Socket client;
            try {
                client = socket.accept();
            } catch (IOException closed) {
                return;
            }
            accepted.incrementAndGet();
            Mode now = mode();
            if (now == Mode.RESET) {
                ProxyLink.resetQuietly(client);
                continue;
            }
            if (now == Mode.REFUSE || now == Mode.CLOSED) {
                ProxyLink.closeQuietly(client);
                continue;
            }
            Socket server = new Socket();
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(target, 5_000);
            } catch (IOException unreachable) {
                // The real server is away: the client sees its connection end, as it would there.
                ProxyLink.closeQuietly(server);
                ProxyLink.closeQuietly(client);
                continue;
            }
            ProxyLink link = new ProxyLink(this, client, server);
            links.add(link);
            if (mode() == Mode.CLOSED) {
                link.close(false);
                continue;
            }
            int id = (int) accepted.get();
            link.pump("fault-proxy-" + port + "-" + id + "-up", client, server);
            link.pump("fault-proxy-" + port + "-" + id + "-down", server, client);
        }
    }

    /**
     * Waits while blackholed, then until the latency has passed since the chunk {@code arrived}
     * (System.nanoTime()); false when the link should end.
     */
    boolean mayPass(ProxyLink link, long arrived) throws InterruptedException {
        long delay;
        synchronized (lock) {
            while (mode == Mode.BLACKHOLE && !link.closed()) {
                lock.wait(50);
            }
            if (mode == Mode.CLOSED || link.closed()) {
                return false;
            }
            delay = arrived + latencyNanos - System.nanoTime();
        }
        if (delay > 0) {
            TimeUnit.NANOSECONDS.sleep(delay);
        }
        // The fault may have changed while the chunk was held.
        return mode() != Mode.BLACKHOLE || mayPass(link, arrived);
    }

}
