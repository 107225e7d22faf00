package dev.ratelimit.bench;

import dev.ratelimit.bench.peers.Peers;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.List;
import redis.clients.jedis.RedisClient;

/**
 * The HTTP bench's floor: one EVALSHA of {@code return 1} per request, keyed by the client's header,
 * through a Jedis pool of the size ours gets, then the chain. No limiter decides anything, so its
 * server CPU over no filter is what one blocking round trip from a request thread costs the node:
 * no filter that asks Redis on every request can cost less. Init-params: {@code redisUri},
 * {@code redisPoolSize}.
 */
public final class RoundTripFloorFilter implements Filter {
    private RedisClient jedis;
    private String sha;

    @Override
    public void init(FilterConfig config) throws ServletException {
        jedis = Peers.pooledJedis(config.getInitParameter("redisUri"),
                Integer.parseInt(config.getInitParameter("redisPoolSize")), "bench-http-floor");
        sha = jedis.scriptLoad("return 1");
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String client = ((HttpServletRequest) request).getHeader("X-Client");
        jedis.evalsha(sha, List.of(client == null ? "anonymous" : client), List.of());
        chain.doFilter(request, response);
    }

    @Override
    public void destroy() {
        jedis.close();
    }
}
