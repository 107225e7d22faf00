package dev.ratelimit.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP benchmark's load generator, always in a process of its own so that neither the server's
 * JVM nor the benchmark's runs it: {@code wrk} where it is on the PATH (with
 * {@code rotating-client.lua}), else {@link LoadGenerator} in a JVM of its own. Both drive
 * {@link #CONNECTIONS} keep-alive connections from {@link #THREADS} threads, closed loop, and rotate
 * the header {@code X-Client} through the row's clients. System property {@value #PROPERTY} picks
 * one: {@code auto} (the default), {@code wrk} or {@code java}.
 */
abstract class HttpLoad implements AutoCloseable {
    /** System property choosing the generator: {@code auto}, {@code wrk} or {@code java}. */
    static final String PROPERTY = "bench.http.generator";
    /** Keep-alive connections, closed loop: enough to keep two cores busy, as in wrk's usual runs. */
    static final int CONNECTIONS = 16;
    /** The generator's threads: wrk's default, and few enough to leave the cores to the server. */
    static final int THREADS = 2;

    /**
     * What the generator measured over the measured part.
     *
     * @param requests   requests sent and answered within it
     * @param seconds    its length
     * @param p50Micros  median latency as the generator saw it
     * @param p99Micros  99th percentile latency
     * @param errors     answers other than 200 (wrk: 400 or above), socket errors and timeouts
     * @param cpuSeconds the generator's own CPU time over it, or NaN where it cannot be read
     */
    record Result(long requests, double seconds, double p50Micros, double p99Micros, long errors, double cpuSeconds) {
    }

    /** Told when the measured part starts and ends, to read the server's and Redis' counters there. */
    interface Meter {
        /** The measured part starts now. */
        void start() throws IOException;

        /** The measured part has ended. */
        void stop() throws IOException;
    }

    /**
     * The generator {@code wanted} names: {@code auto} takes wrk when it is on the PATH, else the
     * JVM one. A smoke run takes the JVM one for {@code auto} too, and runs it as {@link GeneratorJvm.Shared}:
     * wrk counts time in whole seconds, and a smoke run's rows need only a fraction of one.
     *
     * @throws IllegalArgumentException when {@code wanted} is unknown, or is {@code wrk} and wrk is not on the PATH
     */
    static HttpLoad choose(String wanted, boolean smoke) throws IOException, InterruptedException {
        if (smoke && (wanted.equals("auto") || wanted.equals("java"))) {
            return new GeneratorJvm.Shared();
        }
        Path wrk = onPath("wrk");
        switch (wanted) {
            case "auto":
                return wrk != null ? new Wrk(wrk) : new GeneratorJvm.PerRun();
            case "wrk":
                if (wrk == null) {
                    throw new IllegalArgumentException("-D" + PROPERTY + "=wrk, but wrk is not on the PATH "
                            + "(Debian and Ubuntu: apt-get install wrk)");
                }
                return new Wrk(wrk);
            case "java":
                return new GeneratorJvm.PerRun();
            default:
                throw new IllegalArgumentException("-D" + PROPERTY + " must be auto, wrk or java, but was '"
                        + wanted + "'");
        }
    }

    /** Whether wrk is on the PATH. */
    static boolean wrkAvailable() {
        return onPath("wrk") != null;
    }

    /** What generated the load, for the report: name, version, threads, connections. */
    abstract String describe();

    /**
     * Loads {@code uri} for {@code warmUp}, then for {@code measure}, telling {@code meter} when the
     * measured part starts and ends.
     *
     * @throws IllegalStateException when the generator fails
     */
    abstract Result run(URI uri, int clients, Duration warmUp, Duration measure, Meter meter) throws Exception;

    /** Loads {@code uri} for {@code duration} and measures nothing: a warm-up. */
    void warm(URI uri, int clients, Duration duration) throws Exception {
        run(uri, clients, Duration.ZERO, duration, new Meter() {
            @Override
            public void start() {
            }

            @Override
            public void stop() {
            }
        });
    }

    @Override
    public void close() throws IOException {
    }

    /** wrk with {@code rotating-client.lua}, written to a temporary file for as long as this lives. */
    static final class Wrk extends HttpLoad {
        private final Path wrk;
        private final Path script;
        private final String version;

        Wrk(Path wrk) throws IOException, InterruptedException {
            this.wrk = wrk;
            this.script = Files.createTempFile("rotating-client", ".lua");
            try (InputStream source = HttpLoad.class.getResourceAsStream("rotating-client.lua")) {
                Files.write(script, source.readAllBytes());
            }
            // wrk has no version option: its usage text, printed for any unknown one, starts with it.
            List<String> usage = output(List.of(wrk.toString(), "--version"), false);
            this.version = usage.isEmpty() ? "wrk" : usage.get(0).replaceFirst("\\s*Copyright.*", "").trim();
        }

        @Override
        String describe() {
            return "`" + version + "` with `rotating-client.lua`, " + THREADS + " threads, " + CONNECTIONS
                    + " connections";
        }

        @Override
        Result run(URI uri, int clients, Duration warmUp, Duration measure, Meter meter) throws Exception {
            if (!warmUp.isZero()) {
                // A run of its own: wrk has no warm-up, and starting it again costs milliseconds.
                wrk(uri, clients, warmUp);
            }
            long childCpuBefore = childCpuNanos();
            meter.start();
            Map<String, Double> figures = wrk(uri, clients, measure);
            meter.stop();
            long childCpu = childCpuNanos() - childCpuBefore;
            return new Result(figures.get("requests").longValue(), figures.get("seconds"), figures.get("p50us"),
                    figures.get("p99us"), figures.get("errors").longValue(),
                    childCpuBefore < 0 ? Double.NaN : childCpu / 1e9);
        }

        private Map<String, Double> wrk(URI uri, int clients, Duration duration) throws Exception {
            // wrk counts time in whole seconds.
            long seconds = Math.max(1, (duration.toMillis() + 500) / 1000);
            return figures(output(List.of(wrk.toString(), "-t" + THREADS, "-c" + CONNECTIONS, "-d" + seconds + "s",
                    "--timeout", "10s", "-s", script.toString(), uri.toString(), "--", Integer.toString(clients)),
                    true));
        }

        @Override
        public void close() throws IOException {
            Files.deleteIfExists(script);
        }

        /**
         * CPU time of this JVM's children that have ended, from {@code /proc/self/stat}: the JVM waits
         * for every child it started, so a wrk that exited is in it. -1 where it cannot be read.
         */
        private static long childCpuNanos() {
            try {
                String stat = Files.readString(Path.of("/proc/self/stat"));
                // The fields after the command name, which is in parentheses and may hold spaces.
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
                // cutime and cstime are fields 16 and 17 of the whole line, 14 and 15 of this rest.
                long ticks = Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
                // Linux reports these in USER_HZ, 100 per second on every architecture it runs on.
                return ticks * 10_000_000L;
            } catch (IOException | RuntimeException e) {
                return -1;
            }
        }
    }

    /** Every line a child printed, once it has exited; {@code mustSucceed}: fail unless it exited with 0. */
    private static List<String> output(List<String> command, boolean mustSucceed)
            throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            // Blocking reads: the benchmark's JVM spends no CPU while the load runs.
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
            }
        }
        if (mustSucceed) {
            exited(process, command, lines);
        } else {
            process.waitFor(10, TimeUnit.SECONDS);
        }
        return lines;
    }

    static void exited(Process process, List<String> command, List<String> lines) throws InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " failed:\n"
                    + String.join("\n", lines));
        }
    }

    /** The {@code name=value} figures of the generator's last line. */
    static Map<String, Double> figures(List<String> lines) {
        Map<String, Double> figures = new TreeMap<>();
        for (int i = lines.size() - 1; i >= 0 && figures.isEmpty(); i--) {
            Matcher pair = Pattern.compile("(\\w+)=([0-9.]+)").matcher(lines.get(i));
            while (pair.find()) {
                figures.put(pair.group(1), Double.parseDouble(pair.group(2)));
            }
        }
        for (String needed : List.of("requests", "seconds", "p50us", "p99us", "errors")) {
            if (!figures.containsKey(needed)) {
                throw new IllegalStateException("the load generator printed no " + needed + ":\n"
                        + String.join("\n", lines));
            }
        }
        return figures;
    }

    private static Path onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
