package dev.ratelimit.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.ratelimit.RateLimiter;
import org.junit.jupiter.api.Test;

/**
 * The rules of the core's rooms that hold today, checked on its main classes (issue 25 adds the rest
 * with the packages by concern): the core knows no servlet, JAX-RS or Micrometer type; only the API
 * and the transport see Jedis; the API, the engine and the transport never reach up into the HTTP
 * pipeline or its JMX bean.
 */
class CoreArchitectureTest {
    /** The core's own compiled classes, not test-support's, which share the dev.ratelimit root. */
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importUrl(RateLimiter.class.getProtectionDomain().getCodeSource().getLocation());

    @Test
    void theCoreKnowsNoServletJaxRsOrMicrometerType() {
        assertThat(CORE.containPackage("dev.ratelimit.internal")).as("the core's classes were read").isTrue();
        assertThat(CORE.containPackage("dev.ratelimit.testing")).as("and test-support's were not").isFalse();
        noClasses().should().dependOnClassesThat().resideInAnyPackage("jakarta.servlet..", "javax.servlet..",
                "jakarta.ws.rs..", "javax.ws.rs..", "io.micrometer..")
                .because("core is shared by both servlet namespaces and loads the metrics module by name")
                .check(CORE);
    }

    @Test
    void onlyTheApiAndTheTransportSeeJedis() {
        noClasses().that().resideInAnyPackage("dev.ratelimit.http..", "dev.ratelimit.jmx..", "dev.ratelimit.counter..")
                .should().dependOnClassesThat().resideInAnyPackage("redis.clients..")
                .because("one narrow seam lies between the limiter and Redis (RedisGateway)")
                .check(CORE);
    }

    @Test
    void nothingBelowTheHttpPipelineReachesUpIntoIt() {
        // jmx is left out: the policy's bean belongs to the HTTP layer (PolicyRuntime registers it) and
        // parses overrides with its Settings, a circle that issue 25's packages by concern take apart.
        noClasses().that().resideInAnyPackage("dev.ratelimit", "dev.ratelimit.internal..", "dev.ratelimit.counter..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ratelimit.http..", "dev.ratelimit.jmx..")
                .because("the HTTP pipeline is built on the limiter, not the other way round")
                .check(CORE);
    }

    @Test
    void theTransportNeverReachesUpIntoTheCountersOrJmx() {
        noClasses().that().resideInAnyPackage("dev.ratelimit.internal..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ratelimit.counter..", "dev.ratelimit.jmx..")
                .check(CORE);
    }
}
