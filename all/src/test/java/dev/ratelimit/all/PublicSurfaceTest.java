package dev.ratelimit.all;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The public surface of the jars a WAR adds, and of the test kit users' tests add: outside
 * {@code dev.ratelimit.internal} only the API is public, and below it a type is public only when
 * another of the library's packages uses it. Checked here because this module alone sees core, both
 * adapters and the kit at once; a type public only for a test counts as not used.
 */
class PublicSurfaceTest {
    private static final JavaClasses LIBRARY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("test-support")
                    && !location.contains("/dev/ratelimit/shaded/") && !location.contains("/dev/ratelimit/all/"))
            .importPackages("dev.ratelimit");

    /**
     * The public types outside the package {@code dev.ratelimit} (public as a whole): what the docs
     * and shared/design.md give users. A name added here is a promise to keep it.
     */
    private static final Set<String> API_BEYOND_ROOT = new HashSet<>(Arrays.asList(
            "dev.ratelimit.counter.DistinctCounter", "dev.ratelimit.counter.SlidingWindowCounter",
            "dev.ratelimit.http.KeyResolver", "dev.ratelimit.http.RequestView", "dev.ratelimit.http.Usage",
            "dev.ratelimit.http.status.StatusReport",
            "dev.ratelimit.servlet.RateLimitFilter", "dev.ratelimit.servlet.RateLimitStatusServlet",
            "dev.ratelimit.jaxrs.RateLimited", "dev.ratelimit.jaxrs.RateLimitFeature",
            "dev.ratelimit.jaxrs.RateLimitServletInitializer", "dev.ratelimit.jaxrs.CurrentRequestListener",
            "dev.ratelimit.jaxrs.RedisCleanupListener",
            "dev.ratelimit.testkit.TestOnlyRedis", "dev.ratelimit.testkit.TestOnlyRedisExtension",
            "dev.ratelimit.testkit.TestOnlyRedisRule"));

    /** Public below internal because the JVM requires it: an MXBean's interface must be public. */
    private static final String MXBEAN_INTERFACE = "dev.ratelimit.internal.jmx.RateLimiterMXBean";

    @Test
    void everyJarWasRead() {
        assertThat(LIBRARY.containPackage("dev.ratelimit.internal.engine")).as("core").isTrue();
        assertThat(LIBRARY.containPackage("dev.ratelimit.servlet")).as("the filter").isTrue();
        assertThat(LIBRARY.containPackage("dev.ratelimit.jaxrs")).as("JAX-RS").isTrue();
        assertThat(LIBRARY.containPackage("dev.ratelimit.testkit")).as("the test kit").isTrue();
        assertThat(LIBRARY.containPackage("dev.ratelimit.testing")).as("not test-support").isFalse();
    }

    @Test
    void outsideInternalOnlyTheApiIsPublic() {
        classes().that().arePublic().and().areTopLevelClasses()
                .and().resideOutsideOfPackages("dev.ratelimit", "dev.ratelimit.internal..")
                .should(beIn(API_BEYOND_ROOT))
                .because("users code against what is public: anything else public becomes a promise")
                .check(LIBRARY);
    }

    @Test
    void belowInternalPublicOnlyWhereAnotherPackageReachesIt() {
        classes().that().resideInAPackage("dev.ratelimit.internal..").and().arePublic()
                .and().areTopLevelClasses().and().doNotHaveFullyQualifiedName(MXBEAN_INTERFACE)
                .should(beUsedOutsideTheirPackage())
                .because("a type no other package uses is package-private: the package is its room")
                .check(LIBRARY);
    }

    private static ArchCondition<JavaClass> beIn(Set<String> names) {
        return new ArchCondition<JavaClass>("be one of the API's names") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                events.add(new SimpleConditionEvent(type, names.contains(type.getName()),
                        type.getName() + " is public but not in the API's list"));
            }
        };
    }

    /** Used, itself or a type nested in it, by a class of another package. */
    private static ArchCondition<JavaClass> beUsedOutsideTheirPackage() {
        return new ArchCondition<JavaClass>("be used from another package") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                boolean reached = false;
                for (JavaClass self : LIBRARY) {
                    if (!self.equals(type) && !self.getName().startsWith(type.getName() + "$")) {
                        continue;
                    }
                    for (Dependency dependency : self.getDirectDependenciesToSelf()) {
                        reached |= !dependency.getOriginClass().getPackageName().equals(type.getPackageName());
                    }
                }
                events.add(new SimpleConditionEvent(type, reached, type.getName()
                        + " is public, but no other package uses it: make it package-private"));
            }
        };
    }
}
