package dev.ratelimit.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

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
 * <p>{@code LoadGenerator <uri> <connections> <threads> <clients> <warm-up ms> <measure ms>}, or
 * {@code LoadGenerator} alone and one such line of arguments per load on standard input.
 */
public final class LoadGenerator {
    /** Printed when the measured part starts. */
    static final String MEASURING = "measuring";
    /** Printed when the measured part ends. */
    static final String MEASURED = "measured";

    private LoadGenerator() {
    }

    /**
     * Runs the load and prints what it measured (see the class comment). Without arguments it runs one
     * load per line of standard input, each line the six arguments separated by spaces, until the input
     * ends: one process for many rows, as a smoke run uses it ({@link GeneratorJvm.Shared}).
     *
     * @param args uri, connections, threads, clients, warm-up and measured milliseconds; or none
     * @throws Exception when the server cannot be reached or answers what this generator cannot read
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            load(args);
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (!line.isBlank()) {
                load(line.trim().split(" "));
            }
        }
    }

    /** One load, its arguments those of {@link #main}: its lines, the figures last. */
    private static void load(String[] args) throws Exception {
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
        LoadWorker[] workers = new LoadWorker[threads];
        for (int t = 0; t < threads; t++) {
            // Connections split as evenly as they go; each thread starts its clients at its own offset.
            int own = connections / threads + (t < connections % threads ? 1 : 0);
            workers[t] = new LoadWorker(address, own, requests, (int) ((long) t * clients / threads), measureFrom,
                    measureUntil);
        }
        for (LoadWorker worker : workers) {
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
        for (LoadWorker worker : workers) {
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
        System.out.flush();
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
}
