package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A {@code redis-server} child process owned by the extension: bound to 127.0.0.1 on a free port, no
 * persistence, its own temp dir for {@code --dir} and the log. Killed in {@link #close()} and, should that
 * never run, by a JVM shutdown hook.
 *
 * <p>By default it runs a plain standalone server ({@link #standardArguments}); the cluster and sentinel
 * extensions pass their own {@link Arguments} (and port choice) to {@link #start(Path, Path, String,
 * IntSupplier, Arguments)}.
 */
final class RedisProcessServer implements ServerHandle {

    static final String HOST = "127.0.0.1";
    private static final long READY_TIMEOUT_MILLIS = 10_000;
    private static final int PORT_ATTEMPTS = 3;

    /** The command line of one server after the binary, given its port and its own directory. */
    @FunctionalInterface
    interface Arguments {
        /**
         * @param port    the port the server must listen on
         * @param dir     the server's own temp dir (its {@code --dir}); config files may be written here
         * @param logFile where the server must log, so that {@link RedisProcessServer#logTail()} finds it
         */
        List<String> build(int port, Path dir, Path logFile) throws IOException;
    }

    private final Path binary;
    private final Path binaryDir;
    private final Path dir;
    private final String label;
    private final Arguments arguments;
    private final ProcessOutput output;
    private int port;
    private volatile Process process;

    private RedisProcessServer(Path binary, Path binaryDir, Path dir, String label, Arguments arguments) {
        this.binary = binary;
        this.binaryDir = binaryDir;
        this.dir = dir;
        this.label = label;
        this.arguments = arguments;
        this.output = new ProcessOutput(dir);
    }

    /** A plain standalone server ({@link #standardArguments}) on a free port: see the other {@code start}. */
    static RedisProcessServer start(Path binary, Path binaryDir, String label) {
        return start(binary, binaryDir, label, FreePorts::pick, RedisProcessServer::standardArguments);
    }

    /**
     * Starts {@code binary} with the given arguments on a port from {@code ports} and waits until it
     * answers PING; when the port turns out to be taken, asks {@code ports} for another one (up to 3
     * times).
     * @param binary    the redis-server executable
     * @param binaryDir a directory to delete on close (where an extracted binary lives), or null
     * @param label     what to call it in messages
     * @param ports     supplies a free port, never 6379
     * @param arguments the command line after the binary
     */
    static RedisProcessServer start(Path binary, Path binaryDir, String label, IntSupplier ports, Arguments arguments) {
        Path dir;
        try {
            dir = Files.createTempDirectory("ratelimit-redis-");
        } catch (IOException e) {
            TempDirs.deleteRecursively(binaryDir);
            throw new IllegalStateException("cannot create a temp dir for redis-server: " + e.getMessage(), e);
        }
        RedisProcessServer server = new RedisProcessServer(binary, binaryDir, dir, label, arguments);
        List<String> portFailures = new ArrayList<>();
        try {
            for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
                server.port = ports.getAsInt();
                try {
                    server.launch();
                    return server;
                } catch (PortInUse e) {
                    // someone grabbed the free port between our probe and redis' bind: try another
                    portFailures.add(e.getMessage());
                }
            }
            throw new IllegalStateException(label + " could not bind a free port: " + String.join("; ", portFailures));
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    @Override
    public String uri() {
        return "redis://" + HOST + ":" + port;
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public boolean owned() {
        return true;
    }

    @Override
    public String description() {
        Process p = process;
        return "started " + binary + (p == null ? "" : ", pid " + p.pid()) + ", dir " + dir;
    }

    @Override
    public synchronized void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroyForcibly();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(label + " (pid " + p.pid() + ") did not die within 10 s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing " + label, e);
        }
        process = null;
    }

    @Override
    public synchronized void restart() {
        Process p = process;
        if (p != null && p.isAlive() && RedisPing.answers(HOST, port, 1_000)) {
            return;
        }
        kill();
        try {
            launch();
        } catch (PortInUse e) {
            throw new IllegalStateException("cannot restart " + label + " on the same port: " + e.getMessage(), e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            kill();
        } catch (RuntimeException e) {
            System.err.println("[redis-test] " + e.getMessage());
        }
        ProcessReaper.unregister(this);
        TempDirs.deleteQuietly(dir);
        TempDirs.deleteQuietly(binaryDir);
    }

    /** @return the label given at start, e.g. "cluster node 3" */
    String label() {
        return label;
    }

    /** @return the server's own temp dir (its {@code --dir}) */
    Path dir() {
        return dir;
    }

    /** @return true while the process runs (it may not answer yet, or any more) */
    boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /**
     * The arguments of a plain standalone server: bound to 127.0.0.1, no persistence, {@code dir} as its
     * working dir, logging to {@code logFile}.
     */
    static List<String> standardArguments(int port, Path dir, Path logFile) {
        return List.of(
                "--port", Integer.toString(port),
                "--bind", HOST,
                "--save", "",
                "--appendonly", "no",
                "--protected-mode", "no",
                "--dir", dir.toString(),
                "--logfile", logFile.toString());
    }

    private void launch() {
        if (port == FreePorts.FORBIDDEN_PORT) {
            throw new IllegalStateException("refusing to start a test server on port 6379");
        }
        Process p;
        try {
            List<String> command = new ArrayList<>();
            command.add(binary.toString());
            command.addAll(arguments.build(port, dir, output.logFile()));
            output.clear();
            p = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.outFile().toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary + ": " + e.getMessage(), e);
        }
        process = p;
        ProcessReaper.register(this);
        try {
            p.getOutputStream().close();
        } catch (IOException ignored) {
            // redis-server never reads stdin
        }
        awaitReady(p);
    }

    private void awaitReady(Process p) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (true) {
            if (RedisPing.answers(HOST, port, 250) && answersAs(p)) {
                return;
            }
            if (!p.isAlive()) {
                process = null;
                String tail = logTail();
                String msg = label + " (" + binary + ") exited with code " + p.exitValue() + " on port " + port
                        + " before answering PING; last output:\n" + tail;
                if (tail.contains("Address already in use")) {
                    throw new PortInUse(msg);
                }
                throw new IllegalStateException(msg);
            }
            if (System.nanoTime() > deadline) {
                kill();
                throw new IllegalStateException(label + " (" + binary + ") did not answer PING on port " + port
                        + " within " + READY_TIMEOUT_MILLIS / 1000 + " s; last output:\n" + logTail());
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
                throw new IllegalStateException("interrupted while waiting for " + label, e);
            }
        }
    }

    /** The last lines of the process output and the Redis log, for failure messages. */
    String logTail() {
        return output.tail();
    }

    /**
     * Whether the server answering on {@link #port} is process {@code p}. Builds running side by side
     * pick free ports independently: another's server may bind the port between the probe and this
     * one's bind, and would answer PING in its place while this one exits with "Address already in
     * use" (seen with two builds at once: a sentinel "started" that never ran).
     */
    private boolean answersAs(Process p) {
        try {
            String pid = RedisAdmin.info(port, "server").get("process_id");
            return pid != null && Long.parseLong(pid.trim()) == p.pid();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** For {@link ProcessReaper} at JVM shutdown: kills the process without waiting for it. */
    void destroyAtShutdown() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    /** For {@link ProcessReaper} at JVM shutdown, after {@link #destroyAtShutdown()}: waits briefly, deletes the dirs. */
    void awaitDeathAndDeleteDirs() {
        Process p = process;
        if (p != null) {
            try {
                p.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        TempDirs.deleteQuietly(dir);
        TempDirs.deleteQuietly(binaryDir);
    }
}
