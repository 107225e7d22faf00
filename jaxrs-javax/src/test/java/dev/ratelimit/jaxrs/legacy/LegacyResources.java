package dev.ratelimit.jaxrs.legacy;

import dev.ratelimit.jaxrs.RateLimitFeature;
import dev.ratelimit.jaxrs.RateLimited;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.core.Application;

/** JAX-RS 2.1 resources as a legacy application writes them, with the javax jar's annotation. */
public final class LegacyResources {
    private LegacyResources() {
    }

    /** Three a minute per X-Client header; the servlet context-params say where Redis is. */
    @Path("limited")
    @RateLimited(limit = 3, window = "1m", key = "header:X-Client", algorithm = "fixed-window")
    public static class Limited {
        @GET
        public String get() {
            return "ok";
        }
    }

    /** Not annotated: never limited, no headers. */
    @Path("free")
    public static class Free {
        @GET
        public String get() {
            return "ok";
        }
    }

    /** A window no one can read: the deployment must fail. */
    @Path("bad")
    @RateLimited(limit = 3, window = "soon")
    public static class Bad {
        @GET
        public String get() {
            return "bad";
        }
    }

    public static class LimitedApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return new HashSet<>(Arrays.asList(Limited.class, Free.class, RateLimitFeature.class));
        }
    }

    public static class BadApplication extends Application {
        @Override
        public Set<Class<?>> getClasses() {
            return new HashSet<>(Arrays.asList(Bad.class, RateLimitFeature.class));
        }
    }
}
