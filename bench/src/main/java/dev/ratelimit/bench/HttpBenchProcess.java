package dev.ratelimit.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The benchmark's side of an {@link HttpBenchServer} JVM: starts it with one webapp per setup and
 * talks to it over its standard input and output.
 */
final class HttpBenchProcess implements AutoCloseable {
    /**
     * The server JVM's options: a fixed heap, so that its size does not depend on the machine, and
     * debug information at every instruction of compiled code, so that a JFR sample names the
     * method that ran rather than the nearest safepoint's (without it, the run of 28 Nov put
     * samples of a row without leases in {@code QuotaLeases.admit}, inlined but never called there).
     */
    static final List<String> JVM_OPTIONS = List.of("-Xms1g", "-Xmx1g", "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+DebugNonSafepoints");

    private static final Pattern CPU = Pattern.compile("cpu=(\\d+) gcMillis=(\\d+)");

    private final Process process;
    private final BufferedReader out;
    private final Writer in;
    private final int port;

    private HttpBenchProcess(Process process) throws IOException {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.port = Integer.parseInt(answer("port=").substring("port=".length()));
    }

    /**
     * A smoke run's server ({@link HttpRunShape#SMOKE_JVM_OPTIONS}): its figures mean nothing, and it
     * profiles nothing. Its heap need not be fixed, only large enough for every webapp.
     */
    static final List<String> SMOKE_JVM_OPTIONS = Stream.concat(
            HttpRunShape.SMOKE_JVM_OPTIONS.stream(), Stream.of("-Xmx512m")).toList();

    /** Starts the server with every setup, on {@link #SMOKE_JVM_OPTIONS} if {@code smoke}, else {@link #JVM_OPTIONS}. */
    static HttpBenchProcess start(List<HttpBench.Setup> setups, boolean smoke) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(smoke ? SMOKE_JVM_OPTIONS : JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(HttpBenchServer.class.getName());
        for (int i = 0; i < setups.size(); i++) {
            HttpBench.Setup setup = setups.get(i);
            command.add("@" + path(i));
            command.add(setup.filterClass() == null ? "-" : setup.filterClass());
            setup.params().forEach((name, value) -> command.add(name + "=" + value));
        }
        // Its log (Tomcat's, each filter's startup line) goes where this JVM's goes.
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            return new HttpBenchProcess(process);
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    private static String path(int setup) {
        return "/row" + setup;
    }

    /** Where setup {@code index} is served. */
    URI uri(int index) {
        return URI.create("http://127.0.0.1:" + port + path(index) + "/hello");
    }

    /** {CPU time in nanoseconds, collectors' time in milliseconds}, both since the server started. */
    long[] cpu() throws IOException {
        in.write("cpu\n");
        in.flush();
        Matcher figures = CPU.matcher(answer("cpu="));
        if (!figures.find()) {
            throw new IllegalStateException("the server answered cpu with something else");
        }
        return new long[] {Long.parseLong(figures.group(1)), Long.parseLong(figures.group(2))};
    }

    /** Starts recording execution samples (see the class comment). */
    void profile() throws IOException {
        in.write("profile\n");
        in.flush();
    }

    /** Stops recording and writes the recording to {@code file}. */
    void profiled(Path file) throws IOException {
        in.write("profiled " + file.toAbsolutePath() + "\n");
        in.flush();
        answer("profiled");
    }

    /** The server's next line that starts with {@code prefix}; other lines are its own business. */
    private String answer(String prefix) throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("the HTTP bench server ended before it printed " + prefix
                + " (its log is above)");
    }

    @Override
    public void close() throws IOException {
        stop(process, in, "stop\n", 60);
    }

    /**
     * Ends a child that reads commands on its standard input: writes {@code last} to it, closes it,
     * and waits up to {@code seconds} for the child to exit before it kills it.
     */
    static void stop(Process process, Writer in, String last, long seconds) {
        try {
            in.write(last);
            in.close();
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            // It ended already, which is what stop asks for.
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
