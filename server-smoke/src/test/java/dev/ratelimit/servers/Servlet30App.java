package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.Java8;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A Tomcat 7 team's application (Servlet 3.0, javax, Java 8) behind the filter's paths that a
 * Servlet 3.1 container never shows to be safe on 3.0: a login servlet that reads its form as a
 * body after README's login rule read {@code user} from it; the documented "wait for the turn"
 * web.xml ({@code maxDelay}: suspended with {@code AsyncContext} and dispatched again); README's
 * "charge after" filter in front of a report that sets its usage; and the status page. Its servlet
 * is compiled for Java 8 against the servlet API of Tomcat 7 itself.
 */
final class Servlet30App {
    /** The usage the report servlet sets: after the first request the client has this much less. */
    static final int REPORT_USAGE = 5;

    private static final String SOURCE = """
            package legacy;

            import java.io.BufferedReader;
            import java.io.IOException;
            import javax.servlet.http.HttpServlet;
            import javax.servlet.http.HttpServletRequest;
            import javax.servlet.http.HttpServletResponse;

            /** The login form read as a body; the export; the report, which says what it cost. */
            public class AppServlet extends HttpServlet {
                @Override
                protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
                    StringBuilder body = new StringBuilder();
                    BufferedReader reader = request.getReader();
                    for (int c; (c = reader.read()) >= 0; ) {
                        body.append((char) c);
                    }
                    answer(response, "read " + body);
                }

                @Override
                protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
                    if ("/report".equals(request.getServletPath())) {
                        request.setAttribute("dev.ratelimit.usage", %d);
                    }
                    answer(response, request.getServletPath());
                }

                private static void answer(HttpServletResponse response, String text) throws IOException {
                    response.setContentType("text/plain");
                    response.getWriter().print(text);
                }
            }
            """.formatted(REPORT_USAGE);

    private Servlet30App() {
    }

    /** The servlet's classes, compiled under {@code work} against {@code line}'s own servlet API. */
    static Path compiled(ServerLine line, Path work) {
        return Java8.compile("legacy.AppServlet", SOURCE, List.of(line.home().resolve("lib/servlet-api.jar")),
                work.resolve("servlet30-" + line.name()));
    }

    /**
     * The web.xml lines beside README's snippet: the docs' "wait for the turn" block as it is,
     * README's "charge after" filter named {@code charge} (the docs name both {@code export}) and
     * mapped to the report, the status page as its javadoc declares it, and the application's
     * servlet, async-supported as {@code maxDelay} asks, on {@code /login}, {@code /export/*} and
     * {@code /report}.
     */
    static String declaration() throws IOException {
        String charge = documented("web.xml charge after").replace("<filter-name>export</filter-name>",
                "<filter-name>charge</filter-name>");
        assertThat(charge).as("README's charge-after filter").contains("<filter-name>charge</filter-name>");
        return documented("web.xml wait for the turn") + charge + """
                <filter-mapping>
                  <filter-name>charge</filter-name>
                  <url-pattern>/report</url-pattern>
                </filter-mapping>
                <servlet>
                  <servlet-name>ratelimit-status</servlet-name>
                  <servlet-class>dev.ratelimit.servlet.RateLimitStatusServlet</servlet-class>
                </servlet>
                <servlet-mapping>
                  <servlet-name>ratelimit-status</servlet-name>
                  <url-pattern>/ratelimit/status</url-pattern>
                </servlet-mapping>
                <servlet>
                  <servlet-name>app</servlet-name>
                  <servlet-class>legacy.AppServlet</servlet-class>
                  <async-supported>true</async-supported>
                </servlet>
                <servlet-mapping>
                  <servlet-name>app</servlet-name>
                  <url-pattern>/login</url-pattern>
                  <url-pattern>/export/*</url-pattern>
                  <url-pattern>/report</url-pattern>
                </servlet-mapping>
                """;
    }

    /** The xml block after the HTML comment starting with {@code marker}, in README or docs/configuration.md. */
    private static String documented(String marker) throws IOException {
        for (Path page : List.of(Path.of("..", "README.md"), Path.of("..", "docs", "configuration.md"))) {
            String text = Files.readString(page);
            int at = text.indexOf("<!-- " + marker);
            if (at >= 0) {
                int start = text.indexOf("```xml", at) + "```xml".length();
                return text.substring(start, text.indexOf("```", start));
            }
        }
        throw new AssertionError("no block marked '" + marker + "' in README.md or docs/configuration.md");
    }
}
