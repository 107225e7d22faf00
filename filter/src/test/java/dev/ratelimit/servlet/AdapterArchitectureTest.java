package dev.ratelimit.servlet;

import dev.ratelimit.testing.AdapterRules;
import org.junit.jupiter.api.Test;

class AdapterArchitectureTest {
    @Test
    void theFilterUsesOnlyTheCoresApiAndHttpLayer() {
        AdapterRules.check(RateLimitFilter.class);
    }
}
