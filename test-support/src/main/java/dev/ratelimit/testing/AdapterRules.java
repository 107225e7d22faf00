package dev.ratelimit.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What an adapter module (the servlet filter, JAX-RS, Micrometer, in either namespace) may use of
 * the core: the API ({@code dev.ratelimit}, its counters and JMX bean) and the HTTP layer
 * ({@code dev.ratelimit.http..}), never the packages behind them. Each adapter's tests call
 * {@link #check} once with a class of theirs; an exception is named there, with its reason.
 */
public final class AdapterRules {
    /** The core's implementation: the engine, local decisions, scripts, transport and shared values. */
    public static final List<String> CORE_INTERNALS = Arrays.asList("dev.ratelimit.internal.engine..",
            "dev.ratelimit.internal.local..", "dev.ratelimit.internal.scripts..", "dev.ratelimit.internal.redis..", "dev.ratelimit.internal.claim..",
            "dev.ratelimit.internal.rules..", "dev.ratelimit.internal.support..");

    private AdapterRules() {
    }

    /**
     * Checks every main class of the module that holds {@code adapterClass}.
     *
     * @param allowed packages of {@link #CORE_INTERNALS} this adapter may use, each a named exception
     * @throws AssertionError listing each dependency on the core's internals
     */
    public static void check(Class<?> adapterClass, String... allowed) {
        JavaClasses adapter = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importUrl(adapterClass.getProtectionDomain().getCodeSource().getLocation());
        if (!adapter.contain(adapterClass)) {
            throw new AssertionError("the adapter's classes were not read from " + adapterClass);
        }
        List<String> internals = new ArrayList<>(CORE_INTERNALS);
        internals.removeAll(Arrays.asList(allowed));
        noClasses().should().dependOnClassesThat().resideInAnyPackage(internals.toArray(new String[0]))
                .because("an adapter only translates HTTP to the pipeline and back; limits are decided in core")
                .check(adapter);
    }
}
