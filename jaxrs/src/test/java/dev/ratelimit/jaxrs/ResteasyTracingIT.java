package dev.ratelimit.jaxrs;

/** Tracing of @RateLimited resources on RESTEasy 6.2. */
class ResteasyTracingIT extends TracedResourcesContract {
    @Override
    JaxrsRuntime runtime() {
        return JaxrsRuntime.RESTEASY;
    }
}
