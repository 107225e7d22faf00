package dev.ratelimit.example;

import dev.ratelimit.testing.FreePorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
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
     * README's run command shows the example's lines first: no SLF4J complaint about two bindings
     * (the WAR's and the launcher's) and no Jersey warning about a provider the WAR lacks.
     */
    @Test
    void theExampleStartsWithoutWarningsOfItsOwnBuild() throws Exception {
        List<String> warnings = new ArrayList<>();
        Handler jul = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record.getLoggerName() + ": " + record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        PrintStream console = System.err;
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        root.addHandler(jul);
        System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
        try (Launcher launcher = Launcher.start(WAR, FreePorts.pick(), null, false)) {
            assertThat(launcher.port()).isPositive();
        } finally {
            System.setErr(console);
            root.removeHandler(jul);
            console.print(stderr.toString(StandardCharsets.UTF_8));
        }
        assertThat(stderr.toString(StandardCharsets.UTF_8)).doesNotContain("SLF4J");
        assertThat(warnings).as("java.util.logging warnings (Jersey's)").isEmpty();
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
