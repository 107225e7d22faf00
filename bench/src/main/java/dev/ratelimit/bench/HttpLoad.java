package dev.ratelimit.bench;

import dev.ratelimit.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty with a trivial servlet, with and without RateLimitFilter (all requests
 * admitted), driven by a closed-loop load generator in the same JVM: throughput and latency.
 */
final class HttpLoad {
    /** What one load run measured. */
    record Result(double requestsPerSecond, double p50Millis, double p99Millis, long errors) {
    }

    /** A servlet that does nothing: the cost of the container alone. */
    public static final class Hello extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("ok");
        }
    }

    private HttpLoad() {
    }

    static Result run(String redisUri, boolean withFilter, int clients, Duration duration) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        context.addServlet(Hello.class, "/*");
        if (withFilter) {
            FilterHolder filter = new FilterHolder(RateLimitFilter.class);
            filter.setName("bench");
            filter.setInitParameter("redisUri", redisUri);
            filter.setInitParameter("limit", "1000000000");
            filter.setInitParameter("window", "1m");
            filter.setInitParameter("keyPrefix", "ratelimit:http-bench:");
            filter.setInitParameter("redisPoolSize", Integer.toString(BenchRedis.POOL_SIZE));
            context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        server.setHandler(context);
        server.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/hello");
            load(uri, clients, Duration.ofMillis(Math.min(1000, duration.toMillis() / 4)));
            return load(uri, clients, duration);
        } finally {
            server.stop();
        }
    }

    private static Result load(URI uri, int clients, Duration duration) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(uri).GET().build();
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        long end = System.nanoTime() + duration.toNanos();
        List<Future<long[]>> runs = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            runs.add(threads.submit(() -> {
                long[] latencies = new long[1 << 16];
                int count = 0;
                long errors = 0;
                while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
                    long took = System.nanoTime() - start;
                    if (response.statusCode() != 200) {
                        errors++;
                    }
                    if (count == latencies.length) {
                        latencies = Arrays.copyOf(latencies, count * 2);
                    }
                    latencies[count++] = took;
                }
                long[] result = Arrays.copyOf(latencies, count + 1);
                result[count] = errors;
                return result;
            }));
        }
        List<Long> all = new ArrayList<>();
        long errors = 0;
        for (Future<long[]> run : runs) {
            long[] result = run.get();
            for (int i = 0; i < result.length - 1; i++) {
                all.add(result[i]);
            }
            errors += result[result.length - 1];
        }
        threads.shutdown();
        long[] sorted = all.stream().mapToLong(Long::longValue).sorted().toArray();
        double seconds = duration.toNanos() / 1e9;
        return new Result(sorted.length / seconds, percentile(sorted, 0.50) / 1e6, percentile(sorted, 0.99) / 1e6,
                errors);
    }

    private static double percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
    }
}
