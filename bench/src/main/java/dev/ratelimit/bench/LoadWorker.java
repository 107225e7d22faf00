package dev.ratelimit.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/** One thread's connections and what it measured; only its own thread touches them while it runs. */
final class LoadWorker implements Runnable {
    private final InetSocketAddress address;
    private final Connection[] connections;
    private final byte[][] requests;
    private final long measureFrom;
    private final long measureUntil;
    final LatencyHistogram latencies = new LatencyHistogram();
    /** Bound once: {@code Selector.select(Consumer)} then needs no iterator per wake-up. */
    private final Consumer<SelectionKey> onReady = this::onReady;
    private final Selector selector;
    private int nextClient;
    long errors;
    private volatile boolean stopped;
    Exception failure;
    Thread thread;

    LoadWorker(InetSocketAddress address, int connections, byte[][] requests, int firstClient, long measureFrom,
            long measureUntil) throws IOException {
        this.address = address;
        this.connections = new Connection[connections];
        this.requests = requests;
        this.nextClient = firstClient;
        this.measureFrom = measureFrom;
        this.measureUntil = measureUntil;
        this.selector = Selector.open();
    }

    void connect() throws IOException {
        for (int c = 0; c < connections.length; c++) {
            connections[c] = new Connection();
            open(connections[c]);
        }
    }

    void stop() {
        stopped = true;
        selector.wakeup();
    }

    @Override
    public void run() {
        try {
            for (Connection connection : connections) {
                send(connection);
            }
            while (!stopped) {
                selector.select(onReady, 100);
            }
        } catch (Exception e) {
            failure = e;
        } finally {
            for (Connection connection : connections) {
                close(connection);
            }
            try {
                selector.close();
            } catch (IOException e) {
                // The process ends next: nothing to do about a selector that would not close.
            }
        }
    }

    private void onReady(SelectionKey key) {
        Connection connection = (Connection) key.attachment();
        try {
            if (key.isWritable()) {
                flush(connection);
            }
            if (key.isReadable()) {
                read(connection);
            }
        } catch (IOException e) {
            reconnect(connection, e);
        }
    }

    /**
     * The server closed a connection (a keep-alive limit, or a reset after its last answer): the
     * request in flight is lost and not counted, and a new connection takes its place.
     */
    private void reconnect(Connection connection, IOException cause) {
        close(connection);
        if (stopped) {
            return;
        }
        try {
            open(connection);
            send(connection);
        } catch (IOException e) {
            e.addSuppressed(cause);
            throw new IllegalStateException("cannot reconnect to " + address, e);
        }
    }

    private void open(Connection connection) throws IOException {
        SocketChannel channel = SocketChannel.open(address);
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.configureBlocking(false);
        connection.channel = channel;
        connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
        connection.answer.reset();
    }

    private void send(Connection connection) throws IOException {
        ByteBuffer out = connection.out;
        out.clear();
        out.put(requests[nextClient]);
        out.flip();
        if (++nextClient == requests.length) {
            nextClient = 0;
        }
        connection.sentAt = System.nanoTime();
        flush(connection);
    }

    private void flush(Connection connection) throws IOException {
        connection.channel.write(connection.out);
        // A request is about a hundred bytes and almost always leaves in one write; if not, the
        // selector says when the rest can go.
        connection.key.interestOps(connection.out.hasRemaining()
                ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    private void read(Connection connection) throws IOException {
        int read = connection.channel.read(connection.answer.buffer);
        if (read < 0) {
            reconnect(connection, new IOException("the server closed the connection"));
            return;
        }
        int status = connection.answer.complete();
        if (status == 0) {
            return;
        }
        long answered = System.nanoTime();
        if (connection.sentAt - measureFrom >= 0 && answered - measureUntil <= 0) {
            latencies.record(answered - connection.sentAt);
            if (status != 200) {
                errors++;
            }
        }
        if (!stopped) {
            send(connection);
        }
    }

    private static void close(Connection connection) {
        if (connection == null || connection.channel == null) {
            return;
        }
        try {
            connection.channel.close();
        } catch (IOException e) {
            // Closing a socket that failed: nothing left to save.
        }
    }

    /** One keep-alive connection: its request buffer, the answer being read, when the request left. */
    private static final class Connection {
        final ByteBuffer out = ByteBuffer.allocateDirect(1024);
        final ResponseReader answer = new ResponseReader();
        SocketChannel channel;
        SelectionKey key;
        long sentAt;
    }
}
