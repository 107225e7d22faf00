package dev.ratelimit.opentelemetry;

import dev.ratelimit.testing.AdapterRules;
import org.junit.jupiter.api.Test;

class AdapterArchitectureTest {
    @Test
    void theTracingModuleUsesOnlyTheCoresApiAndTheHttpLayer() {
        AdapterRules.check(DecisionSpans.class);
    }
}
