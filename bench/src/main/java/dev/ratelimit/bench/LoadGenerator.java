package dev.ratelimit.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The HTTP benchmark's own load generator, for machines without {@code wrk}: {@link HttpBench} runs
 * it in a JVM of its own, so that it neither shares the server's JVM nor shows in its CPU time.
 *
 * <p>It does what {@code wrk} does, in the same shape: a few threads, each driving its share of
 * keep-alive HTTP/1.1 connections through one NIO selector, closed loop (a connection sends its
 * next request when the answer to the last one has been read). Request {@code i} of a connection
 * carries the header {@code X-Client: client-<n>}, cycling through {@code clients} values, as
 * {@code rotating-client.lua} does for {@code wrk}. The requests are formatted once at start and
 * answers are parsed only as far as the status and {@code Content-Length}; latencies go into
 * fixed histograms, so a request allocates nothing.
 *
 * <p>It warms up, then measures, and prints to standard output {@code measuring} when the measured
 * part starts, {@code measured} when it ends (the benchmark reads the server's and Redis' counters at
 * those two lines), then one line of results:
 * {@code requests=… seconds=… p50us=… p99us=… errors=… cpuSeconds=…}, where {@code errors} counts
 * answers other than 200 and {@code cpuSeconds} is this JVM's own CPU time over the measured part.
 * A request counts when it was sent and answered within the measured part.
 *
 * <p>{@code LoadGenerator <uri> <connections> <threads> <clients> <warm-up ms> <measure ms>}
 */
public final class LoadGenerator {
    /** Printed when the measured part starts. */
    static final String MEASURING = "measuring";
    /** Printed when the measured part ends. */
    static final String MEASURED = "measured";

    private LoadGenerator() {
    }

    /**
     * Runs the load and prints what it measured (see the class comment).
     *
     * @param args uri, connections, threads, clients, warm-up and measured milliseconds
     * @throws Exception when the server cannot be reached or answers what this generator cannot read
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            throw new IllegalArgumentException(
                    "usage: LoadGenerator <uri> <connections> <threads> <clients> <warm-up ms> <measure ms>");
        }
        URI uri = URI.create(args[0]);
        int connections = Integer.parseInt(args[1]);
        int threads = Math.min(connections, Integer.parseInt(args[2]));
        int clients = Integer.parseInt(args[3]);
        long warmUpNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        long measureNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));

        byte[][] requests = requests(uri, clients);
        InetSocketAddress address = new InetSocketAddress(uri.getHost(), uri.getPort());
        long measureFrom = System.nanoTime() + warmUpNanos;
        long measureUntil = measureFrom + measureNanos;
        Worker[] workers = new Worker[threads];
        for (int t = 0; t < threads; t++) {
            // Connections split as evenly as they go; each thread starts its clients at its own offset.
            int own = connections / threads + (t < connections % threads ? 1 : 0);
            workers[t] = new Worker(address, own, requests, (int) ((long) t * clients / threads), measureFrom,
                    measureUntil);
        }
        for (Worker worker : workers) {
            worker.connect();
        }
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(workers[t], "load-" + t);
            thread.setDaemon(true);
            workers[t].thread = thread;
            thread.start();
        }
        sleepUntil(measureFrom);
        long cpuBefore = processCpuNanos();
        System.out.println(MEASURING);
        System.out.flush();
        sleepUntil(measureUntil);
        long cpu = processCpuNanos() - cpuBefore;
        System.out.println(MEASURED);
        System.out.flush();

        LatencyHistogram latencies = new LatencyHistogram();
        long errors = 0;
        for (Worker worker : workers) {
            worker.stop();
            worker.thread.join(TimeUnit.SECONDS.toMillis(10));
            if (worker.failure != null) {
                throw worker.failure;
            }
            latencies.add(worker.latencies);
            errors += worker.errors;
        }
        System.out.printf(Locale.ROOT, "requests=%d seconds=%.3f p50us=%d p99us=%d errors=%d cpuSeconds=%.3f%n",
                latencies.count(), measureNanos / 1e9, latencies.percentileMicros(0.50),
                latencies.percentileMicros(0.99), errors, cpu / 1e9);
    }

    /** One GET per client, formatted once: what goes on the wire, byte for byte. */
    static byte[][] requests(URI uri, int clients) {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        byte[][] requests = new byte[clients][];
        for (int client = 0; client < clients; client++) {
            requests[client] = ("GET " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                    + "\r\nX-Client: client-" + client + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        return requests;
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** One thread's connections and what it measured; only its own thread touches them while it runs. */
    private static final class Worker implements Runnable {
        private final InetSocketAddress address;
        private final Connection[] connections;
        private final byte[][] requests;
        private final long measureFrom;
        private final long measureUntil;
        private final LatencyHistogram latencies = new LatencyHistogram();
        /** Bound once: {@code Selector.select(Consumer)} then needs no iterator per wake-up. */
        private final Consumer<SelectionKey> onReady = this::onReady;
        private final Selector selector;
        private int nextClient;
        private long errors;
        private volatile boolean stopped;
        private Exception failure;
        private Thread thread;

        Worker(InetSocketAddress address, int connections, byte[][] requests, int firstClient, long measureFrom,
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
    }

    /** One keep-alive connection: its request buffer, the answer being read, when the request left. */
    private static final class Connection {
        final ByteBuffer out = ByteBuffer.allocateDirect(1024);
        final Answer answer = new Answer();
        SocketChannel channel;
        SelectionKey key;
        long sentAt;
    }

    /**
     * The answer being read on one connection, parsed only as far as a closed loop needs: where the
     * head ends, the status, and the length of the body. Bodies must carry {@code Content-Length} (the
     * benchmark's servlet and filters always send one); a chunked answer fails the run rather than
     * being misread.
     */
    static final class Answer {
        private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] TRANSFER_ENCODING = "transfer-encoding:".getBytes(StandardCharsets.US_ASCII);

        final ByteBuffer buffer = ByteBuffer.allocateDirect(16 * 1024);
        /** Index just past the blank line that ends the head, or -1 while it has not arrived. */
        private int bodyStart = -1;
        private int bodyLength;
        private int status;
        /** Where to resume looking for the end of the head. */
        private int scanFrom;

        void reset() {
            buffer.clear();
            bodyStart = -1;
            scanFrom = 0;
        }

        /**
         * After bytes were read into {@link #buffer}: the status once the whole answer is there (and
         * the buffer is ready for the next one), else 0.
         *
         * @throws IllegalStateException when the answer has no length this parser understands, or
         *                               more arrived than one answer (nothing is pipelined)
         */
        int complete() {
            int end = buffer.position();
            if (bodyStart < 0) {
                int head = headEnd(end);
                if (head < 0) {
                    if (end == buffer.capacity()) {
                        throw new IllegalStateException("an answer's head is longer than " + end + " bytes");
                    }
                    return 0;
                }
                bodyStart = head;
                status = (digit(9) * 10 + digit(10)) * 10 + digit(11);
                bodyLength = bodyLength(head);
            }
            int answerEnd = bodyStart + bodyLength;
            if (end < answerEnd) {
                if (answerEnd > buffer.capacity()) {
                    throw new IllegalStateException("an answer of " + answerEnd + " bytes does not fit the buffer");
                }
                return 0;
            }
            if (end > answerEnd) {
                throw new IllegalStateException("the server sent " + (end - answerEnd)
                        + " bytes after an answer it was not asked for");
            }
            int answered = status;
            reset();
            return answered;
        }

        private int headEnd(int end) {
            for (int i = Math.max(scanFrom, 3); i < end; i++) {
                if (buffer.get(i) == '\n' && buffer.get(i - 1) == '\r' && buffer.get(i - 2) == '\n'
                        && buffer.get(i - 3) == '\r') {
                    return i + 1;
                }
            }
            scanFrom = end;
            return -1;
        }

        private int bodyLength(int headEnd) {
            int line = 0;
            while (line < headEnd) {
                int next = line;
                while (buffer.get(next) != '\n') {
                    next++;
                }
                if (startsWith(line, next, CONTENT_LENGTH)) {
                    int value = 0;
                    for (int i = line + CONTENT_LENGTH.length; i < next; i++) {
                        byte b = buffer.get(i);
                        if (b >= '0' && b <= '9') {
                            value = value * 10 + (b - '0');
                        }
                    }
                    return value;
                }
                if (startsWith(line, next, TRANSFER_ENCODING)) {
                    throw new IllegalStateException("a chunked answer: this generator reads only answers with "
                            + "Content-Length");
                }
                line = next + 1;
            }
            if (status == 204 || status == 304) {
                return 0;
            }
            throw new IllegalStateException("an answer with status " + status + " and no Content-Length");
        }

        private boolean startsWith(int from, int to, byte[] lowerCaseName) {
            if (to - from < lowerCaseName.length) {
                return false;
            }
            for (int i = 0; i < lowerCaseName.length; i++) {
                byte b = buffer.get(from + i);
                if (b >= 'A' && b <= 'Z') {
                    b += 'a' - 'A';
                }
                if (b != lowerCaseName[i]) {
                    return false;
                }
            }
            return true;
        }

        private int digit(int index) {
            return buffer.get(index) - '0';
        }
    }

    /**
     * Latencies counted in fixed buckets: 1 µs wide below 10 ms, 1 ms wide up to 10 s, and one bucket
     * for anything slower. Recording is an increment; percentiles are exact to the bucket's width.
     */
    static final class LatencyHistogram {
        private static final int FINE_MICROS = 10_000;
        private static final int COARSE_MILLIS = 10_000;

        private final long[] fine = new long[FINE_MICROS];
        private final long[] coarse = new long[COARSE_MILLIS + 1];
        private long count;

        void record(long nanos) {
            long micros = nanos / 1_000;
            if (micros < FINE_MICROS) {
                fine[(int) micros]++;
            } else {
                coarse[(int) Math.min(COARSE_MILLIS, micros / 1_000)]++;
            }
            count++;
        }

        void add(LatencyHistogram other) {
            for (int i = 0; i < fine.length; i++) {
                fine[i] += other.fine[i];
            }
            for (int i = 0; i < coarse.length; i++) {
                coarse[i] += other.coarse[i];
            }
            count += other.count;
        }

        long count() {
            return count;
        }

        /** The latency below which {@code fraction} of the requests were answered, in microseconds; 0 if none. */
        long percentileMicros(double fraction) {
            if (count == 0) {
                return 0;
            }
            long rank = Math.max(1, (long) Math.ceil(fraction * count));
            long seen = 0;
            for (int i = 0; i < fine.length; i++) {
                seen += fine[i];
                if (seen >= rank) {
                    return i;
                }
            }
            for (int i = 0; i < coarse.length; i++) {
                seen += coarse[i];
                if (seen >= rank) {
                    return i * 1_000L;
                }
            }
            throw new AssertionError("the buckets hold fewer requests than counted");
        }
    }
}
