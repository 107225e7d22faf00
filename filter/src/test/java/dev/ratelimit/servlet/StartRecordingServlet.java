package dev.ratelimit.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records the instant each request reaches it, in microseconds since the epoch (the clock Redis'
 * TIME reads on this machine), on every container of the test JVM together (static: the nodes under
 * test are in one JVM), and answers {@code ok}.
 */
public class StartRecordingServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final Queue<Long> STARTS = new ConcurrentLinkedQueue<>();

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Instant now = Instant.now();
        STARTS.add(now.getEpochSecond() * 1_000_000L + now.getNano() / 1000);
        response.setContentType("text/plain");
        response.getWriter().write("ok");
    }
}
