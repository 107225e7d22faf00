package dev.ratelimit.internal.http.settings;

import java.util.HashMap;
import java.util.Map;

/** A policy read as the servlet filter reads it: init-params as name, value pairs over context-params. */
final class FilterSettings {
    private FilterSettings() {
    }

    static HttpPolicy parse(Map<String, String> contextParams, String... pairs) {
        Map<String, String> own = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            own.put(pairs[i], pairs[i + 1]);
        }
        return HttpPolicy.parser("init-param '%s'").defaults(contextParams, "context-param 'ratelimit.%s'")
                .defaultPolicyName("api", "the filter-name").parse(own);
    }

    static HttpPolicy parse(String... pairs) {
        return parse(Map.of(), pairs);
    }
}
