package dev.ratelimit.micrometer;

import dev.ratelimit.testing.AdapterRules;
import org.junit.jupiter.api.Test;

class AdapterArchitectureTest {
    @Test
    void theMetricsModuleUsesOnlyTheCoresApi() {
        AdapterRules.check(RateLimiterMetrics.class);
    }
}
