package dev.ratelimit.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTTP benchmark's load generator, run in a process of its own ({@link HttpBench} starts it),
 * so that what the server's JVM spends is the server's alone: closed-loop connections, each sending
 * its next request when the last answer came, as one of {@code clients} clients picked at random
 * (header {@code X-Client}). Warms up, then measures, then prints one line:
 * {@code requests=… seconds=… p50us=… p99us=… errors=…}.
 *
 * <p>{@code LoadGenerator <uri> <connections> <clients> <warm-up ms> <measure ms>}
 */
public final class LoadGenerator {
    private LoadGenerator() {
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        int connections = Integer.parseInt(args[1]);
        int clients = Integer.parseInt(args[2]);
        long warmUpNanos = Duration.ofMillis(Long.parseLong(args[3])).toNanos();
        long measureNanos = Duration.ofMillis(Long.parseLong(args[4])).toNanos();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        long start = System.nanoTime();
        long measureFrom = start + warmUpNanos;
        long end = measureFrom + measureNanos;
        AtomicLong errors = new AtomicLong();
        long[][] latencies = new long[connections][];
        int[] counts = new int[connections];
        CountDownLatch done = new CountDownLatch(connections);
        for (int c = 0; c < connections; c++) {
            int connection = c;
            Thread thread = new Thread(() -> {
                long[] own = new long[1 << 16];
                int count = 0;
                try {
                    while (true) {
                        long sent = System.nanoTime();
                        if (sent - end >= 0) {
                            break;
                        }
                        String client = "client-" + ThreadLocalRandom.current().nextInt(clients);
                        HttpRequest request = HttpRequest.newBuilder(uri).header("X-Client", client).GET().build();
                        int status;
                        try {
                            status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                        } catch (Exception e) {
                            status = -1;
                        }
                        long answered = System.nanoTime();
                        if (sent - measureFrom < 0 || answered - end > 0) {
                            continue;
                        }
                        if (status != 200) {
                            errors.incrementAndGet();
                        }
                        if (count == own.length) {
                            own = Arrays.copyOf(own, count * 2);
                        }
                        own[count++] = answered - sent;
                    }
                } finally {
                    latencies[connection] = own;
                    counts[connection] = count;
                    done.countDown();
                }
            }, "load-" + c);
            thread.setDaemon(true);
            thread.start();
        }
        done.await();
        int total = 0;
        for (int count : counts) {
            total += count;
        }
        long[] all = new long[total];
        int at = 0;
        for (int c = 0; c < connections; c++) {
            System.arraycopy(latencies[c], 0, all, at, counts[c]);
            at += counts[c];
        }
        Arrays.sort(all);
        System.out.printf(java.util.Locale.ROOT, "requests=%d seconds=%.3f p50us=%d p99us=%d errors=%d%n", total,
                measureNanos / 1e9, percentile(all, 0.50) / 1000, percentile(all, 0.99) / 1000, errors.get());
    }

    private static long percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }
}
