import static org.junit.Assert.assertEquals;

import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.testkit.TestOnlyRedisRule;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.time.Duration;
import java.util.EnumSet;
import javax.servlet.DispatcherType;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.servlet.ServletContextHandler;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Rule;
import org.junit.Test;

/**
 * A legacy team's test as it would write it, in Java 8: JUnit 4, the kit's rule, the javax filter
 * in front of a servlet in an embedded Jetty 9.4, plain HttpURLConnection. LegacyTeamOnJava8IT
 * compiles it for Java 8 and runs it on the Java 8 JVM the build was given.
 */
public class LegacyCheckoutTest {
    @ClassRule
    @Rule
    public static final TestOnlyRedisRule redis = new TestOnlyRedisRule("legacy-checkout");

    private static Server jetty;
    private static String orders;

    public static class OrdersServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
            response.setContentType("text/plain");
            response.getWriter().print("ok");
        }
    }

    @BeforeClass
    public static void start() throws Exception {
        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler shop = new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        shop.setContextPath("/shop");
        FilterHolder limits = new FilterHolder(RateLimitFilter.class);
        limits.setName("orders");
        limits.setInitParameter("redisUri", redis.uri());
        limits.setInitParameter("limit", "3");
        limits.setInitParameter("window", "1m");
        shop.addFilter(limits, "/*", EnumSet.of(DispatcherType.REQUEST));
        shop.addServlet(OrdersServlet.class, "/orders");
        jetty.setHandler(shop);
        jetty.start();
        orders = "http://127.0.0.1:" + connector.getLocalPort() + "/shop/orders";
    }

    @AfterClass
    public static void stop() throws Exception {
        jetty.stop();
    }

    private static int status(HttpURLConnection connection) throws IOException {
        try {
            return connection.getResponseCode();
        } finally {
            connection.disconnect();
        }
    }

    private static HttpURLConnection get() throws IOException {
        return (HttpURLConnection) new URL(orders).openConnection();
    }

    @Test
    public void threeOrdersAMinuteThenTooManyUntilTheMinuteHasPassed() throws IOException {
        for (int i = 0; i < 3; i++) {
            assertEquals(200, status(get()));
        }
        HttpURLConnection denied = get();
        assertEquals(429, denied.getResponseCode());
        assertEquals("60", denied.getHeaderField("Retry-After"));
        denied.disconnect();
        redis.advance(Duration.ofMinutes(1));
        assertEquals(200, status(get()));
    }

    @Test
    public void eachTestStartsWithAFreshRedis() throws IOException {
        for (int i = 0; i < 3; i++) {
            assertEquals(200, status(get()));
        }
        assertEquals(429, status(get()));
    }
}
