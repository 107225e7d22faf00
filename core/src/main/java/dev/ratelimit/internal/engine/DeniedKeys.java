package dev.ratelimit.internal.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The clients denied most in the last few minutes, in bounded memory whatever the number of
 * distinct keys (an attacker rotating keys must not grow it): one generation per minute, the last
 * {@link #GENERATIONS} kept, each a Space-Saving sketch of {@link #CAPACITY} keys. A sketch
 * counts the keys it holds; a new key arriving when it is full takes the place of the key with
 * the lowest count and inherits that count plus one (its possible overestimate, kept as its
 * error). So every key denied more than {@code 1/CAPACITY} of a minute's denials is held, with a
 * count that is never too low. Reading merges the generations of the last five minutes.
 *
 * <p>Only denials are recorded, so allowed traffic costs nothing here; each sketch has its own
 * lock, held for a map lookup (a full scan of 64 entries when a new key replaces the smallest).
 */
final class DeniedKeys {
    /** Keys each one-minute sketch holds. */
    public static final int CAPACITY = 64;
    /** One-minute generations merged when read. */
    public static final int GENERATIONS = 5;

    private final Generation[] generations = new Generation[GENERATIONS];

    public DeniedKeys() {
        for (int i = 0; i < GENERATIONS; i++) {
            generations[i] = new Generation();
        }
    }

    /** A key's denials: its count is never below the true count, and at most {@code error} above it. */
    public static final class Count {
        public final String key;
        public final long count;
        public final long error;

        Count(String key, long count, long error) {
            this.key = key;
            this.count = count;
            this.error = error;
        }
    }

    private static final class Generation {
        private final Map<String, long[]> counts = new HashMap<>();
        private long minute = Long.MIN_VALUE;

        synchronized void add(long atMinute, String key) {
            if (minute != atMinute) {
                counts.clear();
                minute = atMinute;
            }
            long[] entry = counts.get(key);
            if (entry != null) {
                entry[0]++;
                return;
            }
            if (counts.size() < CAPACITY) {
                counts.put(key, new long[] {1, 0});
                return;
            }
            Map.Entry<String, long[]> smallest = null;
            for (Map.Entry<String, long[]> each : counts.entrySet()) {
                if (smallest == null || each.getValue()[0] < smallest.getValue()[0]) {
                    smallest = each;
                }
            }
            long floor = smallest.getValue()[0];
            counts.remove(smallest.getKey());
            counts.put(key, new long[] {floor + 1, floor});
        }

        synchronized void addTo(long oldestMinute, long newestMinute, Map<String, long[]> merged) {
            if (minute < oldestMinute || minute > newestMinute) {
                return;
            }
            for (Map.Entry<String, long[]> each : counts.entrySet()) {
                long[] sum = merged.get(each.getKey());
                if (sum == null) {
                    merged.put(each.getKey(), each.getValue().clone());
                } else {
                    sum[0] += each.getValue()[0];
                    sum[1] += each.getValue()[1];
                }
            }
        }
    }

    /** Counts a denial of {@code key} at {@code epochMillis}. */
    public void record(long epochMillis, String key) {
        long minute = Math.floorDiv(epochMillis, 60_000L);
        generations[(int) Math.floorMod(minute, (long) GENERATIONS)].add(minute, key);
    }

    /** At most {@code limit} keys denied most in the five minutes up to {@code epochMillis}, most denied first. */
    public List<Count> top(long epochMillis, int limit) {
        long minute = Math.floorDiv(epochMillis, 60_000L);
        Map<String, long[]> merged = new HashMap<>();
        for (Generation generation : generations) {
            generation.addTo(minute - GENERATIONS + 1, minute, merged);
        }
        List<Count> all = new ArrayList<>(merged.size());
        for (Map.Entry<String, long[]> each : merged.entrySet()) {
            all.add(new Count(each.getKey(), each.getValue()[0], each.getValue()[1]));
        }
        Collections.sort(all, (a, b) -> a.count != b.count ? Long.compare(b.count, a.count) : a.key.compareTo(b.key));
        return all.size() > limit ? new ArrayList<>(all.subList(0, limit)) : all;
    }
}
