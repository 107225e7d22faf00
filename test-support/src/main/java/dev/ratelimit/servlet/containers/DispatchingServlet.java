package dev.ratelimit.servlet.containers;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Sends the request on through the container, so filters mapped to other dispatchers see it again.
 * By the last segment of its servlet path: {@code .../forward} forwards to {@link #TARGET},
 * {@code .../include} includes it, {@code .../async} starts async processing and dispatches
 * (ASYNC) to it (the servlet must then be async-supported), {@code .../fail} answers
 * {@code sendError(500)} (an error page then dispatches, ERROR). {@link #TARGET} is usually
 * answered by the {@link EchoServlet}.
 */
public class DispatchingServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** Where the request goes next, within the app. */
    public static final String TARGET = "/target";

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException, ServletException {
        String path = request.getServletPath();
        String how = path.substring(path.lastIndexOf('/') + 1);
        switch (how) {
            case "forward" -> request.getRequestDispatcher(TARGET).forward(request, response);
            case "include" -> {
                response.setStatus(HttpServletResponse.SC_OK);
                response.setContentType("text/plain;charset=UTF-8");
                request.getRequestDispatcher(TARGET).include(request, response);
            }
            case "async" -> {
                AsyncContext async = request.startAsync();
                async.start(() -> async.dispatch(TARGET));
            }
            case "fail" -> response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            default -> response.sendError(HttpServletResponse.SC_NOT_FOUND, "no dispatch '" + how + "'");
        }
    }
}
