package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The bugs GiveBacksModelTest found (issue 48), each cut down to a few deterministic steps of {@link
 * GiveBacksModel} (same checks, same messages), and tied to the switch that keeps its step kind out
 * of the model check until it is fixed. With the switch off (today's default) a scenario must still
 * show its violation: that is the known bug, pinned. With it on ({@code -Dgivebacks.model.<switch>=true},
 * or once {@link GiveBackSwitches#defaults} turns it on) the scenario must pass. So a fix shows here
 * first: the pinned scenario fails, saying which switch to turn on, and then the model check runs that
 * step kind on every build.
 */
class GiveBacksKnownBugsTest {
    private static GiveBacksModel scenario(Algorithm algorithm, String switchName) {
        GiveBackSwitches switches = GiveBackSwitches.defaults(algorithm).with(switchName, true).withDenyCache(false);
        return new GiveBacksModel(new GiveBacksModel.Config(algorithm, false, 1, 0, switches));
    }

    /** The known bug shows, or, with its switch on, no violation does. */
    private static void pinned(Algorithm algorithm, String switchName, String violation, ThrowingCallable scenario) {
        boolean fixed = GiveBackSwitches.fromProperties(algorithm).on(switchName);
        if (fixed) {
            assertThatCode(scenario).as("with -Dgivebacks.model." + switchName + "=true the bug is expected fixed")
                    .doesNotThrowAnyException();
        } else {
            assertThatThrownBy(scenario).as("known bug of issue 48 behind switch '" + switchName + "': once it no longer "
                    + "shows, turn the switch on by default (GiveBackSwitches.defaults)").isInstanceOf(AssertionError.class)
                    .hasMessageContaining(violation);
        }
    }

    private static void request(GiveBacksModel model, int client) {
        model.act(() -> model.request(0, client, 1));
    }

    /**
     * A give-back of an admission taken before a reset lands in the fresh state (switch {@code
     * staleGiveBacks}): fixed-window's receipt is its window's end, which the window the reset began
     * may share within half a window, and sliding-window's is the window's number; refund.lua lowers
     * the new count. One place would give nothing there: the client gets a permit more than its limit.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"FIXED_WINDOW", "SLIDING_WINDOW"})
    void aGiveBackFromBeforeAResetLandsInTheNextWindow(Algorithm algorithm) {
        GiveBacksModel model = scenario(algorithm, "staleGiveBacks");
        pinned(algorithm, "staleGiveBacks", "one place 1", () -> {
            request(model, 0);
            model.act(() -> GiveBackResets.reset(model, 0, 0));
            request(model, 0);
            model.act(() -> model.settle(0, 1, -1));
        });
    }

    /**
     * The same for sliding-log (switch {@code staleGiveBacks}): its receipt is an entry's score, and
     * scores are stamped one microsecond after the newest entry when that is not earlier (two
     * admissions in one microsecond, or a booking ahead). After a reset, the new log's first entry can
     * take the score of an entry stamped ahead in the old one; a refund of that old admission then
     * removes the new entry.
     */
    @Test
    void aSlidingLogGiveBackFromBeforeAResetFindsItsScoreInTheNewLog() {
        GiveBacksModel model = scenario(Algorithm.SLIDING_LOG, "staleGiveBacks");
        pinned(Algorithm.SLIDING_LOG, "staleGiveBacks", "Redis' log counts 0 permits in the window, one place 1", () -> {
            request(model, 0);
            request(model, 0);
            model.act(() -> GiveBackResets.reset(model, 0, 0));
            request(model, 0);
            model.act(() -> model.settle(1, 1, -1));
        });
    }

    /**
     * A life born in the microsecond a reset ended the last one (switch {@code sameMicrosecond}): gcra
     * and token-bucket name a state's life by the microsecond it began, so a state born in the same
     * microsecond as the one a reset deleted has its life, and a give-back from before the reset lands
     * in it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Algorithm.class, names = {"GCRA", "TOKEN_BUCKET"})
    void aGiveBackFromBeforeAResetInTheSameMicrosecondLandsInTheNewLife(Algorithm algorithm) {
        GiveBacksModel model = scenario(algorithm, "sameMicrosecond");
        pinned(algorithm, "sameMicrosecond", "than one place's", () -> {
            request(model, 0);
            model.act(() -> GiveBackResets.reset(model, 0, 0));
            request(model, 0);
            model.act(() -> model.settle(0, 1, -1));
        });
    }

    /**
     * A sliding-log refund of the oldest entry with one entry after it leaves the key without a TTL
     * (switch {@code keyTtls}): refund.lua removes the entry, then rewrites the later one (ZREM, ZADD);
     * the ZREM empties the set, Redis deletes the key with its TTL, and the ZADD makes a new key that
     * never expires until the client's next write.
     */
    @Test
    void aSlidingLogRefundOfItsOldestEntryDropsTheKeysTtl() {
        GiveBacksModel model = scenario(Algorithm.SLIDING_LOG, "keyTtls");
        pinned(Algorithm.SLIDING_LOG, "keyTtls", "has no TTL", () -> {
            request(model, 0);
            model.act(() -> {
                model.advance(1_000_000);
                return "a millisecond passes";
            });
            request(model, 0);
            model.act(() -> model.settle(0, 1, -1));
        });
    }

    /**
     * A leaky-bucket refund gives back what has already leaked (switch {@code refunds}): refund.lua
     * lowers the level by the admission's permits, whatever drained since; one place, without that
     * admission, holds the level the later ones poured.
     */
    @Test
    void aLeakyBucketRefundGivesBackWhatHasLeaked() {
        GiveBacksModel model = scenario(Algorithm.LEAKY_BUCKET, "refunds");
        pinned(Algorithm.LEAKY_BUCKET, "refunds", "below one place's", () -> {
            request(model, 0);
            model.act(() -> {
                model.advance(200_000_000);
                return "200 ms pass: the bucket drained";
            });
            request(model, 0);
            model.act(() -> model.settle(0, 1, -1));
        });
    }
}
