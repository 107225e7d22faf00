package dev.ratelimit.servlet;

import dev.ratelimit.testing.RedisServerExtension;
import java.util.HashMap;
import java.util.Map;

/** Init-param strings for a test's filter: its Redis and key prefix, then name, value pairs. */
final class FilterParams {
    private FilterParams() {
    }

    static Map<String, String> of(RedisServerExtension redis, String... pairs) {
        Map<String, String> params = new HashMap<>();
        params.put("redisUri", redis.uri());
        params.put("keyPrefix", redis.keyPrefix());
        for (int i = 0; i < pairs.length; i += 2) {
            params.put(pairs[i], pairs[i + 1]);
        }
        return params;
    }
}
