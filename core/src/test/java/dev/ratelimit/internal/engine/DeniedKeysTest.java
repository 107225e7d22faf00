package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The most-denied keys: heavy hitters found among many distinct keys, in bounded memory, for five minutes. */
class DeniedKeysTest {
    private static final long MINUTE = 60_000L;
    private static final long T0 = 1_800_000_000_000L;

    private final DeniedKeys keys = new DeniedKeys();

    @Test
    void countsAreExactWhileFewKeysAreDenied() {
        for (int i = 0; i < 7; i++) {
            keys.record(T0, "a");
        }
        keys.record(T0 + 1, "b");
        keys.record(T0 + MINUTE, "b");

        List<DeniedKeys.Count> top = keys.top(T0 + MINUTE, 10);

        assertThat(top).extracting(c -> c.key + "=" + c.count).containsExactly("a=7", "b=2");
        assertThat(top).allSatisfy(c -> assertThat(c.error).isZero());
    }

    @Test
    void heavyHittersAreFoundAmongManyDistinctKeysAndMemoryStaysBounded() throws Exception {
        // 22,500 denials in one minute: a key with more than 22,500 / 64 of them is certain to be held.
        for (int i = 0; i < 20_000; i++) {
            keys.record(T0 + i % 1000, "rotating-" + i);
            if (i % 10 == 0) {
                keys.record(T0, "attacker");
            }
            if (i % 40 == 0) {
                keys.record(T0, "second");
            }
        }

        List<DeniedKeys.Count> top = keys.top(T0, 3);

        assertThat(top.get(0).key).isEqualTo("attacker");
        assertThat(top.get(0).count).as("never below the truth").isGreaterThanOrEqualTo(2000);
        assertThat(top.get(0).count - top.get(0).error).isLessThanOrEqualTo(2000);
        assertThat(top.get(1).key).isEqualTo("second");
        assertThat(heldKeys()).as("one full sketch, the rest empty").isEqualTo(DeniedKeys.CAPACITY);
    }

    @Test
    void aMinuteIsForgottenFiveMinutesLater() {
        keys.record(T0, "old");
        keys.record(T0 + 4 * MINUTE, "new");

        assertThat(keys.top(T0 + 4 * MINUTE, 10)).extracting(c -> c.key).containsExactlyInAnyOrder("old", "new");
        assertThat(keys.top(T0 + 5 * MINUTE, 10)).extracting(c -> c.key).containsExactly("new");
        keys.record(T0 + 5 * MINUTE, "newer");
        assertThat(keys.top(T0 + 5 * MINUTE, 10)).extracting(c -> c.key).containsExactly("new", "newer");
        assertThat(keys.top(T0 + 10 * MINUTE, 10)).isEmpty();
    }

    @Test
    void theSameKeyInSeveralMinutesIsMerged() {
        for (int m = 0; m < 5; m++) {
            keys.record(T0 + m * MINUTE, "steady");
        }

        assertThat(keys.top(T0 + 4 * MINUTE, 10)).singleElement().satisfies(c -> assertThat(c.count).isEqualTo(5));
    }

    /** Keys held across all generations, read from the sketches. */
    private int heldKeys() throws Exception {
        Field generations = DeniedKeys.class.getDeclaredField("generations");
        generations.setAccessible(true);
        int held = 0;
        for (Object generation : (Object[]) generations.get(keys)) {
            Field counts = generation.getClass().getDeclaredField("counts");
            counts.setAccessible(true);
            held += ((Map<?, ?>) counts.get(generation)).size();
        }
        return held;
    }
}
