package dev.ratelimit.servlet;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * A login form's target of the application's own, instead of the container's j_security_check: the
 * container's realm checks the password ({@code HttpServletRequest.login}), a refusal is a 401, a
 * success a 303 to the signed-in page. A RateLimitFilter mapped on it sees every attempt.
 */
public class RealmLoginServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        try {
            request.login(request.getParameter("j_username"), request.getParameter("j_password"));
        } catch (ServletException refused) {
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            response.setContentType("text/plain");
            response.getWriter().write("wrong user name or password");
            return;
        }
        response.setStatus(HttpServletResponse.SC_SEE_OTHER);
        response.setHeader("Location", request.getContextPath() + "/secure/page");
    }
}
