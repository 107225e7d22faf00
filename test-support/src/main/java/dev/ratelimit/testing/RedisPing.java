package dev.ratelimit.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Dependency-free readiness probe: one RESP {@code PING} over a fresh socket. */
final class RedisPing {

    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

    private RedisPing() {
    }

    /**
     * @return true when {@code host:port} accepts a connection within {@code timeoutMillis} and answers
     *         {@code +PONG} (a server still loading, or one requiring AUTH, answers an error: false)
     */
    static boolean answers(String host, int port, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            out.write(PING);
            out.flush();
            return "+PONG".equals(readLine(socket.getInputStream()));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** @return true when a TCP connection to {@code host:port} can be opened within {@code timeoutMillis} */
    static boolean accepts(String host, int port, int timeoutMillis) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMillis);
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 512; i++) {
            int b = in.read();
            if (b == -1 || b == '\n') {
                break;
            }
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }
}
