package dev.ratelimit.example;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;

/** The plain servlet behind /api/*: whatever the filters let through gets a small JSON answer. */
public class ApiServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "/" : request.getPathInfo();
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write("{\"ok\":true,\"method\":\"" + request.getMethod() + "\",\"path\":\"/api"
                + path.replace("\"", "") + "\",\"at\":\"" + Instant.now() + "\"}");
    }
}
