package dev.ratelimit.example;

import dev.ratelimit.jaxrs.RateLimitFeature;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/** The JAX-RS application: the demo resources and the feature that makes @RateLimited work. */
public class ExampleApplication extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        return Set.of(DemoResource.class, RateLimitFeature.class);
    }
}
