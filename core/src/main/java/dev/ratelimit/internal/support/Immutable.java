package dev.ratelimit.internal.support;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Unmodifiable collections on Java 8, where {@code List.of} and {@code List.copyOf} do not exist
 * yet: the core runs on legacy servers. Copies keep the order they were given.
 */
public final class Immutable {
    /** The class of {@code Collections.singletonList}: its one element is final and it has no mutator. */
    private static final Class<?> SINGLETON_LIST = Collections.singletonList(null).getClass();

    private Immutable() {
    }

    /** An unmodifiable list of the values, in order. */
    @SafeVarargs
    public static <T> List<T> listOf(T... values) {
        switch (values.length) {
            case 0: return Collections.emptyList();
            case 1: return Collections.singletonList(values[0]);
            default: return Collections.unmodifiableList(Arrays.asList(values.clone()));
        }
    }

    /**
     * An unmodifiable copy, in the collection's order; a list of one made by {@link #listOf} is
     * itself, since nothing can change it (a one-rule decision's keys, copied into its receipt).
     */
    @SuppressWarnings("unchecked")
    public static <T> List<T> copyOf(Collection<? extends T> values) {
        if (values.getClass() == SINGLETON_LIST) {
            return (List<T>) values;
        }
        return values.isEmpty() ? Collections.<T>emptyList() : Collections.unmodifiableList(new ArrayList<>(values));
    }

    /** An unmodifiable copy, in the map's order. */
    public static <K, V> Map<K, V> copyOf(Map<? extends K, ? extends V> map) {
        return map.isEmpty() ? Collections.<K, V>emptyMap() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }

    /** An unmodifiable copy as a set, in the collection's order. */
    public static <T> Set<T> setOf(Collection<? extends T> values) {
        return values.isEmpty() ? Collections.<T>emptySet() : Collections.unmodifiableSet(new LinkedHashSet<>(values));
    }
}
