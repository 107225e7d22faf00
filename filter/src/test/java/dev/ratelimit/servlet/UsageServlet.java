package dev.ratelimit.servlet;

import dev.ratelimit.http.Usage;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Reports a request's real cost as an application does for {@code chargeAfter}: {@code ?usage=} as
 * the text it is, {@code ?number=} as a {@link Long}; {@code ?status=} answers with that status;
 * {@code ?async=true} reports it on another thread, as the asynchronous request completes.
 */
public class UsageServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if ("true".equals(request.getParameter("async"))) {
            AsyncContext async = request.startAsync();
            new Thread(() -> {
                try {
                    report(async.getRequest(), (HttpServletResponse) async.getResponse());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    async.complete();
                }
            }, "usage-async").start();
            return;
        }
        report(request, response);
    }

    private static void report(ServletRequest request, HttpServletResponse response) throws IOException {
        String usage = request.getParameter("usage");
        String number = request.getParameter("number");
        if (usage != null) {
            request.setAttribute(Usage.ATTRIBUTE, usage);
        } else if (number != null) {
            request.setAttribute(Usage.ATTRIBUTE, Long.valueOf(number));
        }
        String status = request.getParameter("status");
        response.setStatus(status == null ? 200 : Integer.parseInt(status));
        response.setContentType("text/plain");
        response.getWriter().write("served");
    }
}
