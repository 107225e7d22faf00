package dev.ratelimit.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.ratelimit.RateLimiter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The rooms of the core and the ways between them, checked on its main classes. The layers, top to
 * bottom: the HTTP pipeline (with its JMX bean), the API's entry points (with the counters), the
 * engine (with local decisions and the scripts), the Redis transport; below them all, the values
 * every layer speaks: the API's value types, what a decision holds ({@code claim}), what rules mean
 * in Java ({@code rules}) and small shared checks ({@code support}).
 *
 * <p>{@code dev.ratelimit} is one package by its public names, but two rooms by its job: the entry
 * points ({@link #ENTRY_POINTS}) call down into the engine, while the values ({@code Decision},
 * {@code Rule}, {@code RedisFailureException}...) are what the engine and the transport hand back.
 * The circle and layer rules treat the two apart, and check that no value names anything above it.
 */
class CoreArchitectureTest {
    /** The core's own compiled classes, not test-support's, which share the dev.ratelimit root. */
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importUrl(RateLimiter.class.getProtectionDomain().getCodeSource().getLocation());

    /** The API types that build and run limiters; every other type of dev.ratelimit is a value. */
    static final Set<String> ENTRY_POINTS = Set.of("RateLimiter", "RateLimiterBuilder", "RedisStore",
            "RedisStoreRegistry", "Overrides", "RateLimitListener");

    private static final int MAX_LINES = 300;

    private static final DescribedPredicate<JavaClass> ENTRY_POINT = DescribedPredicate.describe(
            "the API's entry points", type -> type.getPackageName().equals("dev.ratelimit")
                    && ENTRY_POINTS.contains(topLevel(type).getSimpleName()));
    private static final DescribedPredicate<JavaClass> API_VALUE = DescribedPredicate.describe(
            "the API's values", type -> type.getPackageName().equals("dev.ratelimit")
                    && !ENTRY_POINTS.contains(topLevel(type).getSimpleName()));

    @Test
    void theCoreKnowsNoServletJaxRsOrMicrometerType() {
        assertThat(CORE.containPackage("dev.ratelimit.internal.engine")).as("the core's classes were read").isTrue();
        assertThat(CORE.containPackage("dev.ratelimit.testing")).as("and test-support's were not").isFalse();
        noClasses().should().dependOnClassesThat().resideInAnyPackage("jakarta.servlet..", "javax.servlet..",
                "jakarta.ws.rs..", "javax.ws.rs..", "io.micrometer..", "io.opentelemetry..")
                .because("core is shared by both servlet namespaces and loads the metrics and tracing modules by name")
                .check(CORE);
    }

    @Test
    void onlyRedisStoreAndTheTransportSeeJedis() {
        noClasses().that().resideOutsideOfPackage("dev.ratelimit.internal.redis..")
                .and().doNotHaveFullyQualifiedName("dev.ratelimit.RedisStore")
                .should().dependOnClassesThat().resideInAnyPackage("redis.clients..")
                .because("one narrow seam lies between the limiter and Redis (RedisGateway)")
                .check(CORE);
    }

    @Test
    void theLayersHold() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("HTTP").definedBy("dev.ratelimit.http..", "dev.ratelimit.internal.jmx..")
                .layer("API").definedBy(ENTRY_POINT.or(JavaClass.Predicates.resideInAPackage("dev.ratelimit.counter")))
                .layer("Engine").definedBy("dev.ratelimit.internal.engine..", "dev.ratelimit.internal.local..", "dev.ratelimit.internal.scripts..")
                .layer("Transport").definedBy("dev.ratelimit.internal.redis..")
                .layer("Values").definedBy(API_VALUE.or(JavaClass.Predicates.resideInAnyPackage(
                        "dev.ratelimit.internal.claim..", "dev.ratelimit.internal.rules..", "dev.ratelimit.internal.support..")))
                .whereLayer("HTTP").mayNotBeAccessedByAnyLayer()
                .whereLayer("API").mayOnlyBeAccessedByLayers("HTTP")
                .whereLayer("Engine").mayOnlyBeAccessedByLayers("API")
                .whereLayer("Transport").mayOnlyBeAccessedByLayers("API", "Engine")
                .whereLayer("Values").mayNotAccessAnyLayer()
                .because("a request goes down from HTTP through the API and the engine to Redis; what comes "
                        + "back is values")
                .check(CORE);
    }

    @Test
    void noPackageFormsACircle() {
        slices().assignedFrom(new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass type) {
                if (!type.getPackageName().startsWith("dev.ratelimit")) {
                    return SliceIdentifier.ignore();
                }
                if (ENTRY_POINT.test(type)) {
                    return SliceIdentifier.of("dev.ratelimit (entry points)");
                }
                return SliceIdentifier.of(type.getPackageName() + (API_VALUE.test(type) ? " (values)" : ""));
            }

            @Override
            public String getDescription() {
                return "core's packages, dev.ratelimit as its entry points and its values";
            }
        }).should().beFreeOfCycles().check(CORE);
    }

    @Test
    void theApiPackageHoldsOnlyWhatApplicationsCodeAgainst() {
        classes().that().resideInAPackage("dev.ratelimit").and().areTopLevelClasses()
                .and().doNotHaveSimpleName("package-info").should().bePublic()
                .because("the implementation lives in the packages below, each with its one job")
                .check(CORE);
    }

    @Test
    void everyPackageSaysItsJob() throws IOException {
        Path sources = Path.of("src/main/java");
        List<Path> withoutInfo;
        try (Stream<Path> dirs = Files.walk(sources)) {
            withoutInfo = dirs.filter(Files::isDirectory).filter(CoreArchitectureTest::holdsJava)
                    .filter(dir -> !Files.exists(dir.resolve("package-info.java")))
                    .map(sources::relativize).collect(Collectors.toList());
        }
        assertThat(withoutInfo).as("packages without a package-info.java").isEmpty();
    }

    /**
     * A class that passes 300 lines does more than one thing; split it by responsibility. Counted in
     * every module's main code, the tests' support included.
     */
    @Test
    void noMainClassPassesThreeHundredLines() throws IOException {
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(Path.of(".."))) {
            tooLong = files.filter(file -> file.toString().endsWith(".java") && file.toString().contains("/src/main/java/")
                    && !file.toString().contains("/target/"))
                    .filter(file -> lines(file) > MAX_LINES)
                    .map(file -> file + " (" + lines(file) + " lines)").sorted().collect(Collectors.toList());
        }
        assertThat(tooLong).as("main classes over " + MAX_LINES + " lines").isEmpty();
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean holdsJava(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(file -> file.toString().endsWith(".java"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JavaClass topLevel(JavaClass type) {
        JavaClass outer = type;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer;
    }
}
