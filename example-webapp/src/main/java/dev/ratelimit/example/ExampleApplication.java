package dev.ratelimit.example;

import dev.ratelimit.jaxrs.RateLimitFeature;
import jakarta.ws.rs.core.Application;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/** The JAX-RS application: the demo resources and the feature that makes @RateLimited work. */
public class ExampleApplication extends Application {
    @Override
    public Set<Class<?>> getClasses() {
        // Java 8 collections: the javax build of this example runs on legacy servers.
        return new HashSet<>(Arrays.asList(DemoResource.class, RateLimitFeature.class));
    }
}
