package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
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
        try (Launcher launcher = Launcher.start(WAR, ExampleAnswers.freePort(), null, false)) {
            assertThat(launcher.embeddedRedis()).as("no REDIS_URL: an embedded Redis").isNotNull();
            redisPort = launcher.embeddedRedis().port();
            assertThat(redisPort).isNotEqualTo(6379);
            assertThat(aRedisProcessListens(redisPort)).isTrue();

            ExampleAnswers.check(URI.create("http://localhost:" + launcher.port() + "/"));
        }
        assertThat(aRedisProcessListens(redisPort)).as("the embedded Redis is gone after close").isFalse();
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
        int nobody = ExampleAnswers.freePort();
        assertThatThrownBy(() -> Launcher.start(WAR, ExampleAnswers.freePort(),
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
