package dev.ratelimit.bench;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import redis.clients.jedis.Jedis;

/**
 * The filter over real HTTP: an embedded Tomcat in this JVM with a servlet that writes {@code ok},
 * and a load generator in a process of its own ({@link LoadGenerator}), so that this JVM's CPU is
 * the server's alone. Each row runs on a fresh Tomcat: no filter, Tomcat's own in-memory
 * {@code RateLimitFilter} (the anchor: what a limiter that never leaves the JVM costs), and ours per
 * algorithm, without and with quota leases. Two kinds of traffic, all admitted (limits far above
 * it): 10,000 clients, and 100 busy ones. Per row: requests/s and latency as the generator saw
 * them, and per request this JVM's CPU, Redis' CPU ({@code INFO cpu}) and script calls
 * ({@code INFO commandstats}).
 */
final class HttpBench {
    /** The algorithms the HTTP rows run, each without and with leases. */
    static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-log", "token-bucket", "gcra");
    static final int CONNECTIONS = 16;
    static final int MANY_CLIENTS = 10_000;
    static final int BUSY_CLIENTS = 100;

    /** What one row measured. */
    record Row(String what, int clients, double requestsPerSecond, double p50Millis, double p99Millis, long errors,
            double serverMicros, double redisMicros, double redisCalls) {
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

    private final String redisUri;
    private final boolean smoke;
    private final long warmUpMillis;
    private final long measureMillis;

    HttpBench(String redisUri, boolean smoke) {
        this.redisUri = redisUri;
        this.smoke = smoke;
        this.warmUpMillis = smoke ? 100 : 2_000;
        this.measureMillis = smoke ? 300 : 5_000;
    }

    /** Every row for both kinds of traffic, in the order the report lists them. */
    List<Row> runAll() throws Exception {
        List<Row> rows = new ArrayList<>();
        for (int clients : new int[] {MANY_CLIENTS, BUSY_CLIENTS}) {
            rows.add(run("no filter", clients, null, Map.of()));
            rows.add(run("Tomcat's RateLimitFilter", clients, "org.apache.catalina.filters.RateLimitFilter",
                    Map.of("bucketDuration", "60", "bucketRequests", "100000000")));
            for (String algorithm : ALGORITHMS) {
                for (boolean leases : new boolean[] {false, true}) {
                    Map<String, String> params = new LinkedHashMap<>();
                    params.put("redisUri", redisUri);
                    params.put("algorithm", algorithm);
                    params.put("limit", "1000000000");
                    params.put("window", "1m");
                    params.put("key", "header:X-Client");
                    params.put("keyPrefix", "ratelimit:http-bench:" + clients + ":" + algorithm + ":" + leases + ":");
                    params.put("redisPoolSize", Integer.toString(BenchRedis.POOL_SIZE));
                    params.put("leases", Boolean.toString(leases));
                    rows.add(run("`" + algorithm + "`" + (leases ? ", leases" : ""), clients,
                            "dev.ratelimit.servlet.RateLimitFilter", params));
                }
            }
        }
        return rows;
    }

    private Row run(String what, int clients, String filterClass, Map<String, String> params) throws Exception {
        Path base = Files.createTempDirectory("http-bench");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "hello", new Hello());
        context.addServletMappingDecoded("/*", "hello");
        if (filterClass != null) {
            FilterDef filter = new FilterDef();
            filter.setFilterName("limit");
            filter.setFilterClass(filterClass);
            params.forEach(filter::addInitParameter);
            context.addFilterDef(filter);
            FilterMap map = new FilterMap();
            map.setFilterName("limit");
            map.addURLPatternDecoded("/*");
            context.addFilterMap(map);
        }
        tomcat.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/hello");
            if (!smoke) {
                // A JVM of its own warms the server up; the measured one then starts on a warm server.
                generate(uri, clients, warmUpMillis, warmUpMillis);
            }
            double redisBefore = CpuPerDecisionProfiler.redisCpuSeconds();
            long callsBefore = scriptCalls();
            long cpuBefore = CpuPerDecisionProfiler.processCpuNanos();
            Map<String, Double> load = generate(uri, clients, smoke ? warmUpMillis : 0, measureMillis);
            long cpu = CpuPerDecisionProfiler.processCpuNanos() - cpuBefore;
            long calls = scriptCalls() - callsBefore;
            double redis = CpuPerDecisionProfiler.redisCpuSeconds() - redisBefore;
            double requests = Math.max(1, load.get("requests"));
            if (load.get("errors") > 0) {
                // Every request must be admitted and answered: a row of refusals would measure nothing.
                throw new IllegalStateException(what + " answered " + load.get("errors").longValue() + " of "
                        + (long) requests + " requests with something else than 200");
            }
            return new Row(what, clients, requests / load.get("seconds"), load.get("p50us") / 1000,
                    load.get("p99us") / 1000, load.get("errors").longValue(), cpu / 1e3 / requests,
                    redis * 1e6 / requests, calls / requests);
        } finally {
            tomcat.stop();
            tomcat.destroy();
            delete(base);
        }
    }

    /** Runs the load generator in a JVM of its own and reads what it measured. */
    private static Map<String, Double> generate(URI uri, int clients, long warmUpMillis, long measureMillis)
            throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), LoadGenerator.class.getName(), uri.toString(),
                Integer.toString(CONNECTIONS), "2", Integer.toString(clients), Long.toString(warmUpMillis),
                Long.toString(measureMillis)).redirectErrorStream(true);
        Process process = builder.start();
        List<String> output = new ArrayList<>();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                output.add(line);
            }
        }
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("the load generator failed: " + String.join("\n", output));
        }
        Map<String, Double> figures = new LinkedHashMap<>();
        Matcher pair = Pattern.compile("(\\w+)=([0-9.]+)").matcher(output.get(output.size() - 1));
        while (pair.find()) {
            figures.put(pair.group(1), Double.parseDouble(pair.group(2)));
        }
        return figures;
    }

    private static void delete(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind is no reason to fail a benchmark.
        }
    }

    /** EVALSHA and EVAL calls Redis has run so far. */
    private long scriptCalls() {
        URI uri = URI.create(redisUri);
        try (Jedis admin = new Jedis(uri.getHost(), uri.getPort())) {
            Map<String, Long> stats = RedisMeasurements.commandStats(admin);
            return stats.getOrDefault("evalsha", 0L) + stats.getOrDefault("eval", 0L);
        }
    }
}
