package dev.ratelimit.example;

import dev.ratelimit.testing.FreePorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's run command, minus Maven: the launcher with its own embedded Redis. */
class ExampleLauncherIT {
    private static final Path WAR = Path.of(System.getProperty("example.war", "target/missing.war"));

    /** Whether anything accepts connections on the port (Redis rewrites its process title, so ask the port). */
    private static boolean aRedisProcessListens(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    @Test
    void theLauncherServesTheExampleWithAnEmbeddedRedisAndStopsEverything() throws Exception {
        int redisPort;
        try (Launcher launcher = Launcher.start(WAR, FreePorts.pick(), null, false)) {
            assertThat(launcher.embeddedRedis()).as("no REDIS_URL: an embedded Redis").isNotNull();
            redisPort = launcher.embeddedRedis().port();
            assertThat(redisPort).isNotEqualTo(6379);
            assertThat(aRedisProcessListens(redisPort)).isTrue();

            ExampleAnswers.check(URI.create("http://localhost:" + launcher.port() + "/"));
        }
        assertThat(aRedisProcessListens(redisPort)).as("the embedded Redis is gone after close").isFalse();
    }

    /**
     * README's run command shows the example's lines first: no SLF4J complaint about two bindings (the
     * WAR's and the launcher's), no warning of Jersey's (java.util.logging) about a provider the WAR
     * lacks nor of Jetty's, no line of the test support's; then the example stops with its Redis when
     * the process is told to end, as Ctrl-C tells it. Read from the launcher in a JVM of its own, on the
     * class path exec:java gives it, up to its ready line.
     */
    @Test
    void theFirstScreenIsTheExamplesOwnAndTheEndStopsItsRedis() throws Exception {
        int port = FreePorts.pick();
        // C1 and the serial collector, as Maven's own JVM runs exec:java (.mvn/jvm.config).
        ProcessBuilder command = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), Launcher.class.getName(), WAR.toString(),
                Integer.toString(port)).redirectErrorStream(true);
        command.environment().remove("REDIS_URL");
        Process launcher = command.start();
        // A launcher that never gets ready ends the read instead of hanging the build.
        CompletableFuture.runAsync(launcher::destroyForcibly, CompletableFuture.delayedExecutor(5, TimeUnit.MINUTES));
        List<String> screen = new ArrayList<>();
        List<String> end = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(launcher.getInputStream(),
                StandardCharsets.UTF_8))) {
            String ready = "  The example runs on http://localhost:" + port + "/  (Ctrl-C stops it)";
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                screen.add(line);
                if (line.equals(ready)) {
                    break;
                }
            }
            assertThat(screen).as(String.join("\n", screen)).endsWith(ready);
            // SIGTERM, as Ctrl-C's SIGINT, runs the shutdown hooks; through the handle, so that what
            // they print can still be read (Process.destroy closes the streams).
            launcher.toHandle().destroy();
            out.lines().forEach(end::add);
            assertThat(launcher.waitFor(1, TimeUnit.MINUTES)).isTrue();
        } finally {
            launcher.destroyForcibly();
        }

        String text = String.join("\n", screen);
        Matcher redis = Pattern.compile("REDIS_URL is not set: started an embedded Redis \\(.+\\) at "
                + "redis://127\\.0\\.0\\.1:(\\d+); it stops with the example\\.").matcher(screen.get(0));
        assertThat(redis.matches()).as("the first line says which Redis: " + text).isTrue();
        assertThat(screen).as(text)
                .noneMatch(line -> line.contains("SLF4J"))
                .noneMatch(line -> line.startsWith("WARNING: ") || line.startsWith("SEVERE: "))
                .noneMatch(line -> line.matches("\\[.*] (WARN|ERROR) \\S+ - .*"))
                .noneMatch(line -> line.startsWith("[redis-test]"));
        assertThat(end).as("after the process was told to end").contains("Stopped the example and its embedded Redis.");
        assertThat(aRedisProcessListens(Integer.parseInt(redis.group(1)))).as("its Redis is gone").isFalse();
    }

    @Test
    void aTakenPortIsOneLineSayingWhatToDo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            assertThatThrownBy(() -> Launcher.start(WAR, taken.getLocalPort(), null, false))
                    .isInstanceOf(Launcher.LaunchException.class)
                    .hasMessage("port " + taken.getLocalPort() + " is in use; stop what uses it, or choose another "
                            + "port with -Dport=8081");
        }
    }

    @Test
    void anUnreachableRedisIsOneLineSayingWhatToDo() throws Exception {
        int nobody = FreePorts.pick();
        assertThatThrownBy(() -> Launcher.start(WAR, FreePorts.pick(),
                "redis://:secret@127.0.0.1:" + nobody, false))
                .isInstanceOf(Launcher.LaunchException.class)
                .hasMessageStartingWith("Redis at redis://****@127.0.0.1:" + nobody + " does not answer (")
                .hasMessageEndingWith("); start it, fix REDIS_URL, or unset REDIS_URL to use an embedded Redis")
                .hasMessageNotContaining("secret")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aMissingWarSaysHowToBuildIt() {
        assertThatThrownBy(() -> Launcher.start(Path.of("target/nope.war"), 0, null, false))
                .hasMessage("there is no WAR at target/nope.war; run the README's command from the repository root, "
                        + "it builds one");
    }
}
