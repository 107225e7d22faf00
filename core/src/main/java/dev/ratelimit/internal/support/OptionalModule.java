package dev.ratelimit.internal.support;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.function.Function;

/**
 * The factory of an optional module ({@code ratelimit-micrometer}, {@code ratelimit-opentelemetry}),
 * found by name so that the core needs none of the module's dependencies. Looked up when a policy is
 * read, so a webapp that asks for the module without its jars fails to start, naming the setting.
 */
public final class OptionalModule {
    private final String setting;
    private final Method factory;

    private OptionalModule(String setting, Method factory) {
        this.setting = setting;
        this.factory = factory;
    }

    /**
     * @param library a class of the library the module needs, to tell a missing library from a missing module
     * @param module the module's class, whose public static {@code factory(String)} makes what the core asks for
     * @param missing the message of the IllegalArgumentException thrown when either is missing, given what was
     */
    public static OptionalModule find(String setting, String library, String module, String factory, ClassLoader loader,
            Function<Throwable, String> missing) {
        try {
            Class.forName(library, false, loader);
            return new OptionalModule(setting, Class.forName(module, true, loader).getMethod(factory, String.class));
        } catch (ClassNotFoundException | NoSuchMethodException | LinkageError e) {
            throw new IllegalArgumentException(missing.apply(e), e);
        }
    }

    /** What the module's factory makes for {@code argument}. */
    public Object make(String argument) {
        try {
            return factory.invoke(null, argument);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot bind the " + setting + ": " + e, e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot bind the " + setting + ": " + e.getCause(), e.getCause());
        }
    }

    /** {@code none} or {@code module}, in any case, as the setting takes it. */
    public static String kind(String text, String module, String setting) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (!lower.equals("none") && !lower.equals(module)) {
            throw new IllegalArgumentException("not a " + setting + " binding");
        }
        return lower;
    }
}
