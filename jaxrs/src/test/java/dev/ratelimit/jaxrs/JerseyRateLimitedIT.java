package dev.ratelimit.jaxrs;

/** The @RateLimited contract on Jersey 3.1. */
class JerseyRateLimitedIT extends RateLimitedResourcesContract {
    @Override
    JaxrsRuntime runtime() {
        return JaxrsRuntime.JERSEY;
    }
}
