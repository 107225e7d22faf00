package dev.ratelimit.internal.http.client;

import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.internal.support.BadArgument;

/** Loads the {@link KeyResolver} a user names in {@code keyResolverClass}. */
public final class CustomKeyResolver {
    private CustomKeyResolver() {
    }

    /**
     * @throws BadArgument saying why the class cannot serve: missing, not a KeyResolver, no public
     *     no-argument constructor, or its constructor failed
     */
    public static KeyResolver load(String className, ClassLoader loader) {
        String why;
        try {
            Class<?> type = Class.forName(className, true,
                    loader != null ? loader : CustomKeyResolver.class.getClassLoader());
            if (KeyResolver.class.isAssignableFrom(type)) {
                KeyResolver resolver = (KeyResolver) type.getConstructor().newInstance();
                // Described by its class for the startup log.
                return KeySpec.resolver(resolver::resolve, resolver::keyOfValue, "keyResolverClass " + className);
            }
            why = "it does not implement " + KeyResolver.class.getName();
        } catch (ClassNotFoundException e) {
            why = "no such class is visible to the webapp";
        } catch (NoSuchMethodException e) {
            why = "it has no public no-argument constructor";
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            why = "creating it failed: " + e;
        }
        throw new BadArgument("keyResolverClass", "keyResolverClass must name a public class implementing "
                + KeyResolver.class.getName() + " with a public no-argument constructor, but was '" + className
                + "' (" + why + ")");
    }
}
