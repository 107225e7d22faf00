package dev.ratelimit.example;

import dev.ratelimit.jaxrs.RateLimited;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * One endpoint per algorithm, each 5 requests per 10 seconds (buckets hold 5), so the demo page
 * can fire the same traffic at all six and show how differently they admit it. Keyed by the
 * X-Demo-Run header, which the page renews for every experiment so each starts from scratch.
 */
@Path("demo")
@Produces(MediaType.APPLICATION_JSON)
public class DemoResource {

    @GET
    @Path("fixed-window")
    @RateLimited(algorithm = "fixed-window", limit = 5, window = "10s", key = "header:X-Demo-Run",
            policy = "demo-fixed-window")
    public String fixedWindow() {
        return answer("fixed-window");
    }

    @GET
    @Path("sliding-log")
    @RateLimited(algorithm = "sliding-log", limit = 5, window = "10s", key = "header:X-Demo-Run",
            policy = "demo-sliding-log")
    public String slidingLog() {
        return answer("sliding-log");
    }

    @GET
    @Path("sliding-window")
    @RateLimited(algorithm = "sliding-window", limit = 5, window = "10s", key = "header:X-Demo-Run",
            policy = "demo-sliding-window")
    public String slidingWindow() {
        return answer("sliding-window");
    }

    @GET
    @Path("token-bucket")
    @RateLimited(algorithm = "token-bucket", limit = 5, window = "10s", burst = 5, key = "header:X-Demo-Run",
            policy = "demo-token-bucket")
    public String tokenBucket() {
        return answer("token-bucket");
    }

    @GET
    @Path("leaky-bucket")
    @RateLimited(algorithm = "leaky-bucket", limit = 5, window = "10s", burst = 5, key = "header:X-Demo-Run",
            policy = "demo-leaky-bucket")
    public String leakyBucket() {
        return answer("leaky-bucket");
    }

    @GET
    @Path("gcra")
    @RateLimited(algorithm = "gcra", limit = 5, window = "10s", burst = 5, key = "header:X-Demo-Run",
            policy = "demo-gcra")
    public String gcra() {
        return answer("gcra");
    }

    private static String answer(String algorithm) {
        return "{\"ok\":true,\"algorithm\":\"" + algorithm + "\"}";
    }
}
