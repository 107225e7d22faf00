package dev.ratelimit.servers;

import dev.ratelimit.testing.FreePorts;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One server of a {@link ServerLine}, started from its unpacked distribution as its own JVM, the
 * way an operator runs it: its own base directory, a port of its own on 127.0.0.1, webapps
 * deployed and undeployed by moving an exploded WAR in and out of {@code webapps/}. Whatever it
 * prints goes to {@link #log()}.
 */
final class StandaloneServer implements AutoCloseable {
    /** Servers still running; killed when the test JVM exits, even if no test closes them. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly),
                "standalone-server-reaper"));
    }

    private final ServerLine line;
    private final Path base;
    private final int port;
    private final Path log;
    private final Process process;

    private StandaloneServer(ServerLine line, Path base, int port, Path log, Process process) {
        this.line = line;
        this.base = base;
        this.port = port;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts {@code line} with base directory {@code base}; {@code redisUrl} becomes the process'
     * {@code REDIS_URL}, which README's web.xml reads with {@code ${env:REDIS_URL:…}}. Returns
     * once the server answers HTTP.
     */
    static StandaloneServer start(ServerLine line, Path base, String redisUrl) throws IOException {
        Files.createDirectories(base.resolve("webapps"));
        for (int attempt = 1; ; attempt++) {
            int port = FreePorts.pick();
            List<String> command = line.isJetty() ? jetty(line, base, port) : tomcat(line, base, port);
            Path log = base.resolve("console.log");
            ProcessBuilder builder = new ProcessBuilder(command).directory(base.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().put("REDIS_URL", redisUrl);
            Process process = builder.start();
            LIVE.add(process);
            StandaloneServer server = new StandaloneServer(line, base, port, log, process);
            if (server.awaitHttp()) {
                return server;
            }
            // Another process took the free port before the server bound it (other servers start
            // beside it, other builds run on the machine): again on another port.
            String printed = server.log();
            try {
                server.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (attempt == 3) {
                throw new IllegalStateException(line + " could not bind a free port three times:\n" + printed);
            }
        }
    }

    private static List<String> javaCommand(ServerLine line) {
        List<String> command = new ArrayList<>();
        command.add(line.java().toString());
        // Small and quick to start: five of these share two cores with the build.
        command.add("-Xmx192m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        return command;
    }

    private static List<String> jetty(ServerLine line, Path base, int port) {
        Path home = line.home();
        List<String> command = javaCommand(line);
        command.addAll(List.of("-jar", home.resolve("start.jar").toString(),
                "jetty.home=" + home, "jetty.base=" + base,
                "--module=http," + line.jettyDeployModule(),
                // Jetty 12 scans webapps/ only at startup unless told otherwise.
                "jetty.http.host=127.0.0.1", "jetty.http.port=" + port, "jetty.deploy.scanInterval=1",
                // Jetty 12.0 running in start.jar's own JVM reads these from system properties only.
                "-Djetty.http.host=127.0.0.1", "-Djetty.http.port=" + port, "-Djetty.deploy.scanInterval=1"));
        return command;
    }

    private static List<String> tomcat(ServerLine line, Path base, int port) throws IOException {
        Path home = line.home();
        copyTree(home.resolve("conf"), base.resolve("conf"));
        Files.createDirectories(base.resolve("temp"));
        Files.createDirectories(base.resolve("work"));
        Files.createDirectories(base.resolve("logs"));
        Files.writeString(base.resolve("conf/server.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <Server port="-1" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.startup.VersionLoggerListener"/>
                  <Service name="Catalina">
                    <Connector address="127.0.0.1" port="%d" protocol="HTTP/1.1" connectionTimeout="20000"/>
                    <Engine name="Catalina" defaultHost="localhost" backgroundProcessorDelay="1">
                      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="true"/>
                    </Engine>
                  </Service>
                </Server>
                """.formatted(port));
        // Everything on the console, which is the log this test reads.
        Files.writeString(base.resolve("conf/logging.properties"), """
                handlers = java.util.logging.ConsoleHandler
                .handlers = java.util.logging.ConsoleHandler
                java.util.logging.ConsoleHandler.level = ALL
                java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter
                java.util.logging.ConsoleHandler.encoding = UTF-8
                """);
        List<String> command = javaCommand(line);
        if (!line.onJava8()) {
            // What catalina.sh passes on Java 9 and newer, so the leak detection works as in production.
            command.addAll(List.of("--add-opens=java.base/java.lang=ALL-UNNAMED",
                    "--add-opens=java.base/java.io=ALL-UNNAMED",
                    "--add-opens=java.base/java.util=ALL-UNNAMED",
                    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                    "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED"));
        }
        command.addAll(List.of("-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"),
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
                "-Dcatalina.home=" + home, "-Dcatalina.base=" + base,
                "-Djava.io.tmpdir=" + base.resolve("temp"),
                "-cp", home.resolve("bin/bootstrap.jar") + File.pathSeparator + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start"));
        return command;
    }

    ServerLine line() {
        return line;
    }

    /** The server's base directory ({@code webapps/} and its own configuration). */
    Path base() {
        return base;
    }

    /** The address of the webapp deployed as {@code name}, with a trailing slash. */
    URI app(String name) {
        return URI.create("http://127.0.0.1:" + port + "/" + name + "/");
    }

    /**
     * Deploys the exploded WAR {@code war} as {@code webapps/<its name>}: one rename, so the
     * server never sees half a webapp. Does not wait: the server picks it up on its next scan.
     */
    URI deploy(Path war) throws IOException {
        Path target = base.resolve("webapps").resolve(war.getFileName());
        Files.move(war, target, StandardCopyOption.ATOMIC_MOVE);
        return app(war.getFileName().toString());
    }

    /** Takes webapp {@code name} away again, as an operator removing it from {@code webapps/}. */
    void undeploy(String name) throws IOException {
        Path gone = base.resolve("undeployed");
        Files.createDirectories(gone);
        Files.move(base.resolve("webapps").resolve(name), gone.resolve(name + "-" + System.nanoTime()),
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** Where exploded WARs are built before {@link #deploy}, on the same file system. */
    Path staging() throws IOException {
        return Files.createDirectories(base.resolve("staging"));
    }

    /**
     * The JVM version the server printed when it started: Tomcat's {@code VersionLoggerListener}
     * ({@code JVM Version:}) or Jetty's start line ({@code ; jvm 1.8.0_504-...}); null before that.
     */
    String jvmVersion() {
        Matcher printed = JVM_VERSION.matcher(log());
        return printed.find() ? printed.group(1) : null;
    }

    private static final Pattern JVM_VERSION = Pattern.compile("(?:JVM Version:\\s+|; jvm )(\\S+)");

    /** All the server has printed so far. */
    String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs a full GC in the server (what an unreachable, unclosed socket waits for), then waits 2 s. */
    String collectGarbage() {
        try {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(process.pid()), "GC.run").redirectErrorStream(true).start();
            String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jcmd.waitFor(30, TimeUnit.SECONDS);
            Thread.sleep(2000);
            return out.trim() + "\n";
        } catch (IOException | InterruptedException e) {
            return "(no GC: " + e + ")\n";
        }
    }

    /** What every thread of the server is doing now, for a failure's message. */
    String threadDump() {
        try {
            Process jstack = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
                    Long.toString(process.pid())).redirectErrorStream(true).start();
            String dump = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jstack.waitFor(30, TimeUnit.SECONDS);
            return dump;
        } catch (IOException | InterruptedException e) {
            return "(no thread dump: " + e + ")";
        }
    }

    /**
     * Waits until this server listens on its port: the port answers and the server's log says its
     * own connector started there (a port that answers may be another process' that took it after
     * {@link #freePort}). False when the server could not bind the port.
     */
    private boolean awaitHttp() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            String printed = log();
            if (BIND_FAILED.matcher(printed).find()) {
                return false;
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(line + " exited with " + process.exitValue() + ":\n" + printed);
            }
            if (startedOnPort(printed)) {
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    return true;
                } catch (IOException notYet) {
                    // logged before it accepts: a moment more
                }
            }
            sleep(100);
        }
        throw new IllegalStateException(line + " did not open port " + port + " within 90 s:\n" + log());
    }

    /** What Tomcat ({@code BindException}, Address already in use) and Jetty ({@code Failed to bind}) print when the port is taken. */
    private static final Pattern BIND_FAILED = Pattern.compile("BindException|Address already in use|Failed to bind");

    /**
     * Whether the log shows this server's connector started on its port: Tomcat's {@code Starting
     * ProtocolHandler ["http-nio-127.0.0.1-<port>"]} (7: {@code http-bio-}), Jetty's {@code Started
     * ServerConnector@…{HTTP/1.1, (http/1.1)}{127.0.0.1:<port>}}.
     */
    private boolean startedOnPort(String printed) {
        return printed.lines().anyMatch(line -> line.contains("Starting ProtocolHandler") && line.contains("-127.0.0.1-" + port + "\"]")
                || line.contains("Started ") && line.contains("ServerConnector@") && line.contains("{127.0.0.1:" + port + "}"));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        LIVE.remove(process);
    }

    @Override
    public String toString() {
        return line + " on port " + port;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Copies {@code from} into {@code to}. */
    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }
}
