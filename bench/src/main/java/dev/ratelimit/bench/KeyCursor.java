package dev.ratelimit.bench;

import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** Each benchmark thread's walk through the client keys: distinct keys round-robin, or the hot one. */
@State(Scope.Thread)
public class KeyCursor {
    private static final String[] KEYS = new String[Traffic.DISTINCT_KEYS];

    static {
        for (int i = 0; i < KEYS.length; i++) {
            KEYS[i] = "client-" + i;
        }
    }

    private int next = (int) (Thread.currentThread().getId() * 7919 % Traffic.DISTINCT_KEYS);

    String next(Traffic traffic) {
        if (traffic != Traffic.DISTINCT) {
            return "hot";
        }
        next = next + 1 == KEYS.length ? 0 : next + 1;
        return KEYS[next];
    }
}
