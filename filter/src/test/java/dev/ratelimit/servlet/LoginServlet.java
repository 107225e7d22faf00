package dev.ratelimit.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** A login for the tests: 200 for the password {@code good}, 401 for any other. */
public class LoginServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean good = "good".equals(request.getParameter("password"));
        response.setStatus(good ? 200 : 401);
        response.setContentType("text/plain");
        response.getWriter().write(good ? "welcome" : "bad password");
    }
}
