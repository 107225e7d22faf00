package dev.ratelimit.jaxrs;

import dev.ratelimit.testing.AdapterRules;
import org.junit.jupiter.api.Test;

class AdapterArchitectureTest {
    @Test
    void theJaxRsAdapterUsesOnlyTheCoresApiAndHttpLayer() {
        AdapterRules.check(RateLimitFeature.class);
    }
}
