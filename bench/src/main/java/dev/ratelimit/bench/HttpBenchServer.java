package dev.ratelimit.bench;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The HTTP benchmark's server, a JVM of its own ({@link HttpBench} starts it): an embedded Tomcat on
 * 127.0.0.1 with one webapp per row, each a servlet that writes {@code ok} behind the filter that
 * row measures, if any. All rows share the JVM, so the code they share (Tomcat's, and the filter's
 * between rows of ours) is compiled once, in a warm-up before anything is measured, and every row
 * then runs on the same warm JVM; only the row being measured gets requests. This JVM's CPU time
 * is the server's alone: the load generator and the benchmark's orchestration run elsewhere.
 *
 * <p>It prints {@code port=<n>} once every webapp has started, then answers commands on standard
 * input, one a line: {@code cpu} prints {@code cpu=<ns> gcMillis=<ms>} (this JVM's CPU time and
 * the time its collectors report, both since start); {@code profile} starts a JFR recording of
 * execution samples (every millisecond, with stacks) and {@code profiled <file>} stops it, writes it
 * to the file and prints {@code profiled}; {@code stop}, or the end of input, stops Tomcat (and the
 * filters with it) and exits.
 *
 * <p>{@code HttpBenchServer @<path> <filter class, several separated by commas, or -> [<init-param>=<value> …]
 * [@<path> …]}
 */
public final class HttpBenchServer {
    /** A servlet that does nothing: the cost of the container alone. */
    public static final class Hello extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().write("ok");
        }
    }

    private HttpBenchServer() {
    }

    /**
     * Serves until told to stop (see the class comment).
     *
     * @param args per webapp: {@code @} and its context path, its filter class or {@code -} for none,
     *             and the filter's init-params as {@code name=value}
     * @throws Exception when Tomcat or a filter does not start
     */
    public static void main(String[] args) throws Exception {
        Path base = Files.createTempDirectory("http-bench");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setHostname("127.0.0.1");
        tomcat.getConnector().setPort(0);
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        // Tomcat closes a keep-alive connection after 100 requests by default; the generators would
        // then spend part of every row reconnecting, which measures the TCP stack, not the filter.
        tomcat.getConnector().setProperty("maxKeepAliveRequests", "-1");
        List<Context> contexts = new ArrayList<>();
        for (int i = 0; i < args.length; ) {
            if (!args[i].startsWith("@") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected @<path> <filter class or -> at argument " + i + ": "
                        + String.join(" ", args));
            }
            String path = args[i].substring(1);
            String filterClass = args[i + 1];
            i += 2;
            Map<String, String> params = new LinkedHashMap<>();
            for (; i < args.length && !args[i].startsWith("@"); i++) {
                int equals = args[i].indexOf('=');
                params.put(args[i].substring(0, equals), args[i].substring(equals + 1));
            }
            contexts.add(webapp(tomcat, base, path, filterClass.equals("-") ? null : filterClass, params));
        }
        tomcat.start();
        for (Context context : contexts) {
            if (!context.getState().isAvailable()) {
                // A filter that refuses its configuration leaves its webapp stopped; Tomcat only logs it.
                tomcat.stop();
                throw new IllegalStateException("the webapp " + context.getPath() + " did not start (see the log "
                        + "above)");
            }
        }
        try {
            System.out.println("port=" + tomcat.getConnector().getLocalPort());
            System.out.flush();
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String command;
            Recording recording = null;
            while ((command = commands.readLine()) != null && !command.equals("stop")) {
                if (command.equals("cpu")) {
                    System.out.printf(Locale.ROOT, "cpu=%d gcMillis=%d%n", processCpuNanos(), gcMillis());
                    System.out.flush();
                } else if (command.equals("profile")) {
                    recording = new Recording();
                    // Execution samples alone: what the profile's summary reads, at the least cost to the row.
                    recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1)).withStackTrace();
                    recording.start();
                } else if (command.startsWith("profiled ") && recording != null) {
                    recording.stop();
                    recording.dump(Path.of(command.substring("profiled ".length())));
                    recording.close();
                    recording = null;
                    System.out.println("profiled");
                    System.out.flush();
                } else {
                    throw new IllegalArgumentException("unknown command '" + command + "': cpu, profile, "
                            + "profiled <file> or stop");
                }
            }
        } finally {
            tomcat.stop();
            tomcat.destroy();
            delete(base);
        }
    }

    /**
     * @param filterClasses the row's filter, or several separated by commas, mapped in that order: the
     *     last is the row's, given the init-params ({@link ServerSpanAheadFilter} goes ahead of ours)
     */
    private static Context webapp(Tomcat tomcat, Path base, String path, String filterClasses,
            Map<String, String> params) throws IOException {
        Path docBase = Files.createDirectories(base.resolve("webapp" + path.replace('/', '-')));
        Context context = tomcat.addContext(path, docBase.toString());
        Tomcat.addServlet(context, "hello", new Hello()).setAsyncSupported(true);
        context.addServletMappingDecoded("/*", "hello");
        if (filterClasses == null) {
            return context;
        }
        String[] chain = filterClasses.split(",");
        for (int i = 0; i < chain.length; i++) {
            String filterClass = chain[i];
            String name = i == chain.length - 1 ? "limit" : "ahead" + i;
            FilterDef filter = new FilterDef();
            filter.setFilterName(name);
            filter.setFilterClass(filterClass);
            if (i == chain.length - 1) {
                params.forEach(filter::addInitParameter);
            }
            FilterMap map = new FilterMap();
            map.setFilterName(name);
            map.addURLPatternDecoded("/*");
            if (filterClass.equals(AsyncHopFilter.class.getName())) {
                // The one row that suspends its requests: it sees them again on their async dispatch.
                filter.setAsyncSupported("true");
                map.setDispatcher("REQUEST");
                map.setDispatcher("ASYNC");
            }
            context.addFilterDef(filter);
            context.addFilterMap(map);
        }
        return context;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long gcMillis() {
        long millis = 0;
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            millis += Math.max(0, collector.getCollectionTime());
        }
        return millis;
    }

    private static void delete(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind is no reason to fail a benchmark.
        }
    }
}
