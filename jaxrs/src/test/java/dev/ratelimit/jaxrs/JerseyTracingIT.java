package dev.ratelimit.jaxrs;

/** Tracing of @RateLimited resources on Jersey 3.1. */
class JerseyTracingIT extends TracedResourcesContract {
    @Override
    JaxrsRuntime runtime() {
        return JaxrsRuntime.JERSEY;
    }
}
