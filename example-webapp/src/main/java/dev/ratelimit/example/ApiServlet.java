package dev.ratelimit.example;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;

/**
 * The plain servlet behind /api/*: whatever the filters let through gets a small JSON answer;
 * /api/login fails (401) unless {@code password=secret}, and /api/slow takes 1.5 s.
 */
public class ApiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** The password of the demo login; anything else is a failed login (401). */
    static final String PASSWORD = "secret";
    /** How long /api/slow takes to answer, so that requests overlap. */
    static final long SLOW_MILLIS = 1500;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "/" : request.getPathInfo();
        if (path.equals("/login") && !PASSWORD.equals(request.getParameter("password"))) {
            // Only these answers count against the login filter's countStatus=401.
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        }
        if (path.equals("/slow")) {
            try {
                Thread.sleep(SLOW_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write("{\"ok\":" + (response.getStatus() < 400) + ",\"method\":\"" + request.getMethod() + "\",\"path\":\"/api"
                + path.replace("\"", "") + "\",\"at\":\"" + Instant.now() + "\"}");
    }
}
