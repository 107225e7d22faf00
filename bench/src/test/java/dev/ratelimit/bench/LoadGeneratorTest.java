package dev.ratelimit.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The JVM load generator's parts that decide what it counts: answers read, latencies ranked, requests sent. */
class LoadGeneratorTest {
    private static final String OK = "HTTP/1.1 200 \r\nContent-Type: text/plain;charset=ISO-8859-1\r\n"
            + "Content-Length: 2\r\nDate: Thu, 26 Nov 2026 13:05:49 GMT\r\n\r\nok";

    @Test
    void anAnswerIsCompleteOnlyWhenItsBodyHasArrived() {
        ResponseReader answer = new ResponseReader();
        byte[] bytes = OK.getBytes(StandardCharsets.US_ASCII);
        // In three pieces: inside the head's blank line, then one byte short of the body.
        int[] cuts = {OK.indexOf("\r\n\r\n") + 2, bytes.length - 1, bytes.length};
        int from = 0;
        for (int i = 0; i < cuts.length; i++) {
            answer.buffer.put(bytes, from, cuts[i] - from);
            from = cuts[i];
            assertThat(answer.complete()).as("after piece " + i).isEqualTo(i < cuts.length - 1 ? 0 : 200);
        }
        assertThat(answer.buffer.position()).as("ready for the next answer").isZero();
    }

    @Test
    void theStatusAndAnyCaseOfContentLengthAreRead() {
        ResponseReader answer = new ResponseReader();
        String denied = "HTTP/1.1 429 \r\nRetry-After: 1\r\ncontent-LENGTH: 5\r\n\r\n{...}";
        answer.buffer.put(denied.getBytes(StandardCharsets.US_ASCII));

        assertThat(answer.complete()).isEqualTo(429);
    }

    @Test
    void whatItCannotReadFailsTheRunInsteadOfBeingMiscounted() {
        ResponseReader chunked = new ResponseReader();
        chunked.buffer.put("HTTP/1.1 200 \r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(chunked::complete).hasMessageContaining("chunked");

        ResponseReader twice = new ResponseReader();
        twice.buffer.put((OK + OK).getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(twice::complete).hasMessageContaining("not asked for");
    }

    @Test
    void percentilesAreExactToTheirBucket() {
        LatencyHistogram first = new LatencyHistogram();
        LatencyHistogram second = new LatencyHistogram();
        for (int micros = 1; micros <= 98; micros++) {
            first.record(micros * 1_000L + 999);
        }
        second.record(25_400_000L);
        second.record(99_000_000_000L);
        first.add(second);

        assertThat(first.count()).isEqualTo(100);
        assertThat(first.percentileMicros(0.50)).isEqualTo(50);
        assertThat(first.percentileMicros(0.98)).isEqualTo(98);
        assertThat(first.percentileMicros(0.99)).as("1 ms buckets above 10 ms").isEqualTo(25_000);
        assertThat(first.percentileMicros(1.0)).as("anything slower than 10 s").isEqualTo(10_000_000);
        assertThat(new LatencyHistogram().percentileMicros(0.5)).isZero();
    }

    @Test
    void eachClientHasItsOwnRequestAsWrkSendsIt() {
        byte[][] requests = LoadGenerator.requests(URI.create("http://127.0.0.1:8080/row3/hello"), 3);

        assertThat(requests).hasNumberOfRows(3);
        assertThat(new String(requests[2], StandardCharsets.US_ASCII)).isEqualTo(
                "GET /row3/hello HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Client: client-2\r\n\r\n");
    }
}
