package dev.ratelimit.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@link LoadGenerator} as the HTTP bench's load: in a JVM of its own per run, or one JVM for every run of a smoke run. */
final class GeneratorJvm {
    private GeneratorJvm() {
    }

    /** {@link LoadGenerator} in a JVM of its own. */
    static final class PerRun extends HttpLoad {
        @Override
        String describe() {
            return described("in a JVM of its own");
        }

        @Override
        Result run(URI uri, int clients, Duration warmUp, Duration measure, Meter meter) throws Exception {
            // It allocates next to nothing while it runs: the smallest collector and heap leave the
            // cores to the server.
            List<String> command = command(List.of("-XX:+UseSerialGC"), uri.toString(),
                    Integer.toString(HttpLoad.CONNECTIONS), Integer.toString(HttpLoad.THREADS), Integer.toString(clients),
                    Long.toString(warmUp.toMillis()), Long.toString(measure.toMillis()));
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            List<String> lines;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                lines = oneRun(out, meter);
            }
            HttpLoad.exited(process, command, lines);
            return generatorResult(lines);
        }
    }

    /**
     * {@link LoadGenerator} for a smoke run, whose figures mean nothing: one JVM for every run, each run
     * a line on its standard input, on C1 with the serial collector and a small heap
     * ({@link HttpRunShape#SMOKE_JVM_OPTIONS}), as the build's test JVMs. Still a process of its own:
     * a generator inside the server's JVM would measure itself.
     */
    static final class Shared extends HttpLoad {
        private final List<String> command = command(HttpRunShape.SMOKE_JVM_OPTIONS);
        /** Started by the first run. */
        private Process process;
        private BufferedReader out;
        private Writer in;

        @Override
        String describe() {
            return described("one JVM of its own for every row");
        }

        @Override
        Result run(URI uri, int clients, Duration warmUp, Duration measure, Meter meter) throws Exception {
            if (process == null) {
                process = new ProcessBuilder(command).redirectErrorStream(true).start();
                out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            }
            in.write(uri + " " + HttpLoad.CONNECTIONS + " " + HttpLoad.THREADS + " " + clients + " " + warmUp.toMillis() + " "
                    + measure.toMillis() + "\n");
            in.flush();
            List<String> lines = oneRun(out, meter);
            if (!figuresIn(lines)) {
                // It ended without its figures: a failure, whose exit code and output say what.
                HttpLoad.exited(process, command, lines);
            }
            return generatorResult(lines);
        }

        @Override
        public void close() throws IOException {
            if (process != null) {
                // The end of its input ends it.
                HttpBenchProcess.stop(process, in, "", 10);
            }
        }
    }

    /** The command that starts a LoadGenerator in a JVM of its own with these options, on a small heap. */
    private static List<String> command(List<String> jvmOptions, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Xmx128m", "-cp", System.getProperty("java.class.path"), LoadGenerator.class.getName()));
        command.addAll(List.of(arguments));
        return command;
    }

    private static String described(String where) {
        return "`LoadGenerator` (NIO, " + where + "), " + HttpLoad.THREADS + " threads, " + HttpLoad.CONNECTIONS
                + " connections";
    }

    /**
     * The lines one run printed, up to its figures (its last line) or the end of its output, telling
     * {@code meter} when the measured part starts and ends.
     */
    private static List<String> oneRun(BufferedReader out, HttpLoad.Meter meter) throws IOException {
        List<String> lines = new ArrayList<>();
        boolean measuring = false;
        String line;
        while (!figuresIn(lines) && (line = out.readLine()) != null) {
            lines.add(line);
            measuring = meter(line, meter, measuring);
        }
        return lines;
    }

    private static boolean figuresIn(List<String> lines) {
        return !lines.isEmpty() && lines.get(lines.size() - 1).startsWith("requests=");
    }

    /** Tells {@code meter} what a LoadGenerator's {@code line} says, if anything: whether it is measuring after it. */
    private static boolean meter(String line, HttpLoad.Meter meter, boolean measuring) throws IOException {
        if (line.equals(LoadGenerator.MEASURING)) {
            meter.start();
            return true;
        }
        if (line.equals(LoadGenerator.MEASURED) && measuring) {
            meter.stop();
            return false;
        }
        return measuring;
    }

    /** What a LoadGenerator printed, its figures on the last line that has any. */
    private static HttpLoad.Result generatorResult(List<String> lines) {
        Map<String, Double> figures = HttpLoad.figures(lines);
        return new HttpLoad.Result(figures.get("requests").longValue(), figures.get("seconds"), figures.get("p50us"),
                figures.get("p99us"), figures.get("errors").longValue(), figures.get("cpuSeconds"));
    }
}
