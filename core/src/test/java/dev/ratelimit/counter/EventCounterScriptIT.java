package dev.ratelimit.counter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.testing.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The event-counter script's write ids, sent as a replay sends them: a write sent twice with one id
 * counts once, per writer, and an id too old to tell is taken as counted, never counted twice.
 */
class EventCounterScriptIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final String SOURCE = LuaScript.load("event-counter").source();
    /** Slots of an hour: every write of a test lands in one slot. */
    private static final String SLOT_MICROS = "3600000000";

    private static long write(String key, long events, String writer, long id) {
        List<String> args = List.of(Long.toString(events), SLOT_MICROS, "1", writer, Long.toString(id, 36));
        return countOf(redis.client().eval(SOURCE, List.of(key), args));
    }

    /** The same write sent again after it timed out. */
    private static long replay(String key, long events, String writer, long id) {
        List<String> args = List.of(Long.toString(events), SLOT_MICROS, "1", writer, Long.toString(id, 36), "replay");
        return countOf(redis.client().eval(SOURCE, List.of(key), args));
    }

    private static long count(String key) {
        return countOf(redis.client().eval(SOURCE, List.of(key), List.of("0", SLOT_MICROS, "1")));
    }

    private static long countOf(Object reply) {
        return (Long) ((List<?>) reply).get(0);
    }

    @Test
    void aWriteSentAgainWithItsIdCountsOnce() {
        String key = redis.key("again");
        assertThat(write(key, 3, "node-a", 1)).isEqualTo(3);
        assertThat(replay(key, 3, "node-a", 1)).as("the replay of a write that had run").isEqualTo(3);
        assertThat(write(key, 2, "node-a", 2)).isEqualTo(5);
        assertThat(write(key, 4, "node-b", 1)).as("another writer's id 1 is another write").isEqualTo(9);
        assertThat(replay(key, 4, "node-b", 1)).isEqualTo(9);
        assertThat(count(key)).isEqualTo(9);
    }

    @Test
    void aWriteThatDidNotRunCountsWhenSentAgainAfterLaterOnes() {
        String key = redis.key("late");
        for (long id = 2; id <= 5; id++) {
            write(key, 1, "node-a", id);
        }
        assertThat(replay(key, 1, "node-a", 1)).as("id 1 never arrived: counted now").isEqualTo(5);
        assertThat(replay(key, 1, "node-a", 1)).isEqualTo(5);
    }

    @Test
    void anIdOlderThanAFullListIsTakenAsCountedAndTheListStaysBounded() {
        String key = redis.key("old");
        for (long id = 2; id <= 20; id++) {
            write(key, 1, "node-a", id);
        }
        assertThat(replay(key, 1, "node-a", 1)).as("too old to tell: not counted twice").isEqualTo(19);
        assertThat(replay(key, 1, "node-a", 13)).as("still listed").isEqualTo(19);
        assertThat(write(key, 1, "node-a", 1)).as("a first send always counts (writes arrive out of order)")
                .isEqualTo(20);
        String field = redis.client().hget(key, "w:node-a");
        List<String> ids = new ArrayList<>(List.of(field.substring(field.indexOf(':') + 1).split(",")));
        assertThat(ids).as("the last 8 ids, newest first").containsExactly("1", "k", "j", "i", "h", "g", "f", "e");
    }

    @Test
    void countingAndOldScriptsArgumentsNeedNoWriter() {
        String key = redis.key("plain");
        assertThat(countOf(redis.client().eval(SOURCE, List.of(key), List.of("2", SLOT_MICROS, "1")))).isEqualTo(2);
        assertThat(countOf(redis.client().eval(SOURCE, List.of(key), List.of("2", SLOT_MICROS, "1")))).isEqualTo(4);
        assertThat(redis.client().hlen(key)).as("no writer field without a writer").isEqualTo(1);
    }
}
