package dev.ratelimit.servlet;

import dev.ratelimit.http.status.StatusReport;
import dev.ratelimit.internal.http.webapp.Webapp;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.slf4j.LoggerFactory;

/**
 * A status page of this webapp's rate limits, for people: each policy's configuration (password
 * masked), live overrides, the limit and enforce in force, counts since start, the circuit breaker,
 * Redis latency percentiles, allowed and denied per second over the last five minutes as a chart,
 * the most-denied client keys (digests stay digests), and a one-line verdict. {@code ?format=json}
 * gives the same data as JSON. Only this webapp's policies, as this node counted them; nothing is
 * read from Redis, so the page answers while Redis is down.
 *
 * <p>{@code client=<value>} (what the client sends: an address, a user name, an API key) looks
 * one client up first: in each policy, the client's key (secret parts as their digests) and what
 * each limiter would answer its next request, read from Redis without taking anything. The value
 * is shown nowhere and logged nowhere; a secret is better sent by POST ({@code
 * application/x-www-form-urlencoded}, the same parameters), which keeps it out of access logs.
 *
 * <p>Map it yourself and protect it with your own security constraint: it shows client keys such
 * as addresses and user names.
 *
 * <pre>{@code
 * <servlet>
 *   <servlet-name>ratelimit-status</servlet-name>
 *   <servlet-class>dev.ratelimit.servlet.RateLimitStatusServlet</servlet-class>
 * </servlet>
 * <servlet-mapping><servlet-name>ratelimit-status</servlet-name><url-pattern>/ratelimit/status</url-pattern></servlet-mapping>
 * }</pre>
 *
 * <p>Answers GET (and HEAD) with {@code Cache-Control: no-store}, {@code X-Content-Type-Options:
 * nosniff}, {@code X-Frame-Options: DENY} and a Content-Security-Policy that allows nothing but the
 * page's inline styles. An unknown {@code format} is a 400 naming it.
 */
public class RateLimitStatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final String CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    /** The same page: a client value sent in the body stays out of access logs, which log query strings. */
    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        doGet(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Content-Security-Policy", CSP);
        String format = request.getParameter("format");
        if (format != null && !"json".equals(format) && !"html".equals(format)) {
            // The bad value is echoed as text/plain, never as markup.
            send(response, HttpServletResponse.SC_BAD_REQUEST, "text/plain;charset=UTF-8",
                    "format must be html or json, but was '" + format + "'\n");
            return;
        }
        String client = request.getParameter("client");
        if (client != null && client.isEmpty()) {
            send(response, HttpServletResponse.SC_BAD_REQUEST, "text/plain;charset=UTF-8",
                    "client must be what a client sends (an address, a user name, an API key), but was empty\n");
            return;
        }
        ServletContext context = getServletContext();
        String body;
        try {
            StatusReport report = StatusReport.of(context.getContextPath(), Webapp.runningPolicies(context::getAttribute),
                    client);
            body = "json".equals(format) ? report.json() : report.html();
        } catch (RuntimeException e) {
            // A policy closing under our feet must not turn the page into a container's 500 page.
            LoggerFactory.getLogger(RateLimitStatusServlet.class).warn("Cannot render the rate limit status", e);
            send(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "text/plain;charset=UTF-8",
                    "the rate limit status cannot be rendered now; see the server log\n");
            return;
        }
        send(response, HttpServletResponse.SC_OK, "json".equals(format) ? "application/json;charset=UTF-8"
                : "text/html;charset=UTF-8", body);
    }

    private static void send(HttpServletResponse response, int status, String contentType, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(contentType);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
