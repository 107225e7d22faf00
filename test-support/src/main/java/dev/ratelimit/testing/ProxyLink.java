package dev.ratelimit.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One connection through a {@link FaultProxy}: the accepted client socket, the one to the server,
 * and a pump each way that holds chunks while the proxy's fault says so.
 */
final class ProxyLink {
    private static final int CHUNK = 16 * 1024;

    /** A chunk read from one side, with the System.nanoTime() it was read at; END for the side's orderly end. */
    private record Chunk(long arrived, byte[] bytes) {
        static final Chunk END = new Chunk(0, new byte[0]);
    }

    private final FaultProxy proxy;
    private final Socket client;
    private final Socket server;
    private volatile boolean closed;

    ProxyLink(FaultProxy proxy, Socket client, Socket server) {
        this.proxy = proxy;
        this.client = client;
        this.server = server;
    }

    /**
     * Forwards {@code from} to {@code to} on a thread that reads each chunk as it comes and stamps
     * it. With no fault and nothing held it writes the chunk on at once, as a plain forwarder;
     * otherwise the chunk is queued for a second thread, started on the first such chunk, which
     * passes it on once its latency has passed since it arrived. Were one thread to read, wait
     * and write, a message that arrived in several reads (a pipeline, a script longer than the
     * client's buffer) would wait the latency once per read, and cost more the busier the machine.
     */
    void pump(String name, Socket from, Socket to) {
        proxy.start(name, () -> read(name, from, to));
    }

    private void read(String name, Socket from, Socket to) {
        byte[] buffer = new byte[CHUNK];
        BlockingQueue<Chunk> held = new LinkedBlockingQueue<>();
        boolean delivering = false;
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0) {
                long arrived = System.nanoTime();
                if (!delivering && passesAtOnce()) {
                    out.write(buffer, 0, read);
                    out.flush();
                    continue;
                }
                // From the first chunk held on, every chunk goes through the queue, in order.
                if (!delivering) {
                    delivering = true;
                    proxy.start(name + "-deliver", () -> deliver(held, to));
                }
                held.add(new Chunk(arrived, Arrays.copyOf(buffer, read)));
            }
            // An orderly end on one side is passed on as one, after what came before it.
            if (delivering) {
                held.add(Chunk.END);
            } else {
                close(false);
            }
        } catch (IOException e) {
            // The other side closed, or reset: end both.
            close(proxy.resetting());
        }
    }

    private void deliver(BlockingQueue<Chunk> held, Socket to) {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Chunk chunk = held.poll(50, TimeUnit.MILLISECONDS);
                if (chunk == null) {
                    if (closed) {
                        return;
                    }
                    continue;
                }
                if (chunk == Chunk.END || !proxy.mayPass(this, chunk.arrived())) {
                    close(false);
                    return;
                }
                out.write(chunk.bytes());
                out.flush();
            }
        } catch (IOException e) {
            // The other side closed, or reset: end both.
            close(proxy.resetting());
        } catch (InterruptedException e) {
            close(false);
        }
    }

    /** Forwarding with no latency: a chunk need not be held. */
    private boolean passesAtOnce() {
        return !closed && proxy.passesAtOnce();
    }

    boolean closed() {
        return closed;
    }

    void close(boolean withReset) {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        proxy.unlink(this);
        if (withReset) {
            resetQuietly(client);
        } else {
            closeQuietly(client);
        }
        closeQuietly(server);
    }

    static void resetQuietly(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // already closed
        }
        closeQuietly(socket);
    }

    static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception ignored) {
            // nothing to do about it
        }
    }
}
