package dev.ratelimit.jaxrs;

/** The @RateLimited contract on RESTEasy 6.2. */
class ResteasyRateLimitedIT extends RateLimitedResourcesContract {
    @Override
    JaxrsRuntime runtime() {
        return JaxrsRuntime.RESTEASY;
    }
}
