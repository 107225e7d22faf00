package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the benchmark reads its generators, whichever it runs. */
class HttpLoadTest {
    @Test
    void theFiguresAreThoseOfTheLastLineThatHasAny() {
        List<String> wrk = List.of("Running 5s test @ http://127.0.0.1:40000/row3/hello", "  2 threads and 16 connections",
                "Requests/sec:  44521.07", "requests=222605 seconds=5.003 p50us=290 p99us=3490 errors=0");

        assertThat(HttpLoad.figures(wrk)).containsEntry("requests", 222_605.0).containsEntry("seconds", 5.003)
                .containsEntry("p99us", 3_490.0).containsEntry("errors", 0.0).doesNotContainKey("cpuSeconds");
    }

    @Test
    void aGeneratorThatPrintedNoFiguresFailsTheRunWithWhatItSaid() {
        assertThatThrownBy(() -> HttpLoad.figures(List.of("unable to connect to 127.0.0.1:1 Connection refused")))
                .hasMessageContaining("printed no requests").hasMessageContaining("Connection refused");
    }

    @Test
    void theWrkScriptShipsWithTheModuleAndRotatesTheClientHeader() throws Exception {
        try (InputStream script = HttpLoad.class.getResourceAsStream("rotating-client.lua")) {
            assertThat(script).as("a resource of the bench module").isNotNull();
            String source = new String(script.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(source).contains("[\"X-Client\"] = \"client-\" .. (i - 1)", "function request()",
                    "requests=%d seconds=%.3f p50us=%d p99us=%d errors=%d");
        }
    }
}
