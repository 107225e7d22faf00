package dev.ratelimit.servlet.containers;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The default servlet of every {@link AppDescriptor} (mapped to {@code /*}): answers 200, text/plain, body
 * {@code "<METHOD> <requestURI>"}, header {@code X-Echo: 1} (so a test can see the chain reached the
 * servlet) and {@code X-Echo-Remote-Addr} (what {@code getRemoteAddr()} returned).
 */
public class EchoServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    public static final String ECHO_HEADER = "X-Echo";
    public static final String REMOTE_ADDR_HEADER = "X-Echo-Remote-Addr";

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = (request.getMethod() + " " + request.getRequestURI()).getBytes(StandardCharsets.UTF_8);
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("text/plain;charset=UTF-8");
        response.setHeader(ECHO_HEADER, "1");
        response.setHeader(REMOTE_ADDR_HEADER, request.getRemoteAddr());
        // No setContentLength: with it Tomcat completes the response on the last write, before the
        // servlet returns, and an undeploy right after the client saw it waits for the servlet.
        if (!"HEAD".equals(request.getMethod())) {
            response.getOutputStream().write(body);
        }
    }
}
