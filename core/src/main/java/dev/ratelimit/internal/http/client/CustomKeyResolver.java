package dev.ratelimit.internal.http.client;

import dev.ratelimit.http.KeyResolver;
import dev.ratelimit.http.RequestView;
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
                return new Named(resolver, className);
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

    /** The user's resolver, described by its class for the startup log. */
    private static final class Named implements KeyResolver {
        private final KeyResolver resolver;
        private final String className;

        Named(KeyResolver resolver, String className) {
            this.resolver = resolver;
            this.className = className;
        }

        @Override
        public String resolve(RequestView request) {
            return resolver.resolve(request);
        }

        @Override
        public String keyOfValue(String value) {
            return resolver.keyOfValue(value);
        }

        @Override
        public String toString() {
            return "keyResolverClass " + className;
        }
    }
}
