package dev.ratelimit.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The answer being read on one of {@link LoadGenerator}'s connections, parsed only as far as a
 * closed loop needs: where the head ends, the status, and the length of the body. Bodies must carry
 * {@code Content-Length} (the benchmark's servlet and filters always send one); a chunked answer
 * fails the run rather than being misread.
 */
final class ResponseReader {
    private static final byte[] CONTENT_LENGTH = "content-length:".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRANSFER_ENCODING = "transfer-encoding:".getBytes(StandardCharsets.US_ASCII);

    final ByteBuffer buffer = ByteBuffer.allocateDirect(16 * 1024);
    /** Index just past the blank line that ends the head, or -1 while it has not arrived. */
    private int bodyStart = -1;
    private int bodyLength;
    private int status;
    /** Where to resume looking for the end of the head. */
    private int scanFrom;

    void reset() {
        buffer.clear();
        bodyStart = -1;
        scanFrom = 0;
    }

    /**
     * After bytes were read into {@link #buffer}: the status once the whole answer is there (and
     * the buffer is ready for the next one), else 0.
     *
     * @throws IllegalStateException when the answer has no length this parser understands, or
     *                               more arrived than one answer (nothing is pipelined)
     */
    int complete() {
        int end = buffer.position();
        if (bodyStart < 0) {
            int head = headEnd(end);
            if (head < 0) {
                if (end == buffer.capacity()) {
                    throw new IllegalStateException("an answer's head is longer than " + end + " bytes");
                }
                return 0;
            }
            bodyStart = head;
            status = (digit(9) * 10 + digit(10)) * 10 + digit(11);
            bodyLength = bodyLength(head);
        }
        int answerEnd = bodyStart + bodyLength;
        if (end < answerEnd) {
            if (answerEnd > buffer.capacity()) {
                throw new IllegalStateException("an answer of " + answerEnd + " bytes does not fit the buffer");
            }
            return 0;
        }
        if (end > answerEnd) {
            throw new IllegalStateException("the server sent " + (end - answerEnd)
                    + " bytes after an answer it was not asked for");
        }
        int answered = status;
        reset();
        return answered;
    }

    private int headEnd(int end) {
        for (int i = Math.max(scanFrom, 3); i < end; i++) {
            if (buffer.get(i) == '\n' && buffer.get(i - 1) == '\r' && buffer.get(i - 2) == '\n'
                    && buffer.get(i - 3) == '\r') {
                return i + 1;
            }
        }
        scanFrom = end;
        return -1;
    }

    private int bodyLength(int headEnd) {
        int line = 0;
        while (line < headEnd) {
            int next = line;
            while (buffer.get(next) != '\n') {
                next++;
            }
            if (startsWith(line, next, CONTENT_LENGTH)) {
                int value = 0;
                for (int i = line + CONTENT_LENGTH.length; i < next; i++) {
                    byte b = buffer.get(i);
                    if (b >= '0' && b <= '9') {
                        value = value * 10 + (b - '0');
                    }
                }
                return value;
            }
            if (startsWith(line, next, TRANSFER_ENCODING)) {
                throw new IllegalStateException("a chunked answer: this generator reads only answers with "
                        + "Content-Length");
            }
            line = next + 1;
        }
        if (status == 204 || status == 304) {
            return 0;
        }
        throw new IllegalStateException("an answer with status " + status + " and no Content-Length");
    }

    private boolean startsWith(int from, int to, byte[] lowerCaseName) {
        if (to - from < lowerCaseName.length) {
            return false;
        }
        for (int i = 0; i < lowerCaseName.length; i++) {
            byte b = buffer.get(from + i);
            if (b >= 'A' && b <= 'Z') {
                b += 'a' - 'A';
            }
            if (b != lowerCaseName[i]) {
                return false;
            }
        }
        return true;
    }

    private int digit(int index) {
        return buffer.get(index) - '0';
    }
}
