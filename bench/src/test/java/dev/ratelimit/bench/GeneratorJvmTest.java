package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Both ways the bench runs its own generator, against a server that answers {@code ok}: a JVM per run
 * (the full run's, when wrk is absent, and its generator table's) and one JVM for every run (a smoke
 * run's). Each reports its figures and tells the meter once when the measured part starts and ends;
 * that the rows load the server is BenchmarkSmokeIT's to show.
 */
class GeneratorJvmTest {
    private HttpServer server;
    private URI uri;

    @BeforeEach
    void startServer() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    @Test
    void aJvmPerRunReportsItsFigures() throws Exception {
        try (HttpLoad load = new GeneratorJvm.PerRun()) {
            assertMeasured(load);
        }
    }

    @Test
    void oneJvmForEveryRunReportsEachRunsFigures() throws Exception {
        try (HttpLoad load = new GeneratorJvm.Shared()) {
            assertMeasured(load);
            assertMeasured(load);
        }
    }

    private void assertMeasured(HttpLoad load) throws Exception {
        AtomicInteger starts = new AtomicInteger();
        AtomicInteger stops = new AtomicInteger();
        HttpLoad.Result result = load.run(uri, 3, Duration.ofMillis(50), Duration.ofMillis(500), new HttpLoad.Meter() {
            @Override
            public void start() {
                starts.incrementAndGet();
            }

            @Override
            public void stop() {
                stops.incrementAndGet();
            }
        });
        // How many requests fit in the window depends on the machine (none, on a busy one): the figures
        // line is what matters here, read whole, with the window it measured.
        assertThat(result.seconds()).as("the measured window").isEqualTo(0.5);
        assertThat(result.requests()).as("requests answered").isNotNegative();
        assertThat(result.errors()).as("answers other than 200").isZero();
        assertThat(starts).as("measuring started").hasValue(1);
        assertThat(stops).as("measuring stopped").hasValue(1);
    }
}
