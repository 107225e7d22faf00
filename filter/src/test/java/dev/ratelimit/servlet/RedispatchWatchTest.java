package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The judgement of whether delayed requests come back through the filter: one request that came
 * back unseen (a filter ahead answered its dispatch) never switches delaying off; a request seen
 * again proves the mapping for good; and switched off, delaying is tried again a minute later.
 */
class RedispatchWatchTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final RedispatchWatch watch = new RedispatchWatch(now::get, DescriptorDispatchers.Mapping.UNKNOWN);

    @Test
    void threeUnseenInARowSwitchDelayingOffOnceNotBefore() {
        assertThat(watch.unseen()).isFalse();
        assertThat(watch.unseen()).isFalse();
        assertThat(watch.delaying()).as("two in a row prove nothing").isTrue();
        assertThat(watch.unseen()).as("the third switches it off").isTrue();
        assertThat(watch.delaying()).isFalse();
        assertThat(watch.unseen()).as("already off: reported once").isFalse();
    }

    @Test
    void aRequestSeenAgainProvesTheMappingForGood() {
        watch.unseen();
        watch.unseen();
        watch.seen();
        assertThat(watch.proven()).isTrue();
        for (int i = 0; i < 10; i++) {
            assertThat(watch.unseen()).as("a filter ahead answering dispatches changes nothing now").isFalse();
        }
        assertThat(watch.delaying()).isTrue();
    }

    @Test
    void aSightingBetweenUnseenOnesStartsTheCountAgain() {
        RedispatchWatch unproven = new RedispatchWatch(now::get, DescriptorDispatchers.Mapping.UNKNOWN);
        unproven.unseen();
        unproven.unseen();
        unproven.seen();
        assertThat(unproven.delaying()).isTrue();
        assertThat(unproven.unseen()).isFalse();
    }

    @Test
    void offIsTriedAgainAfterAMinuteAndOneMoreUnseenSwitchesItOffAgain() {
        for (int i = 0; i < RedispatchWatch.UNSEEN_TO_JUDGE; i++) {
            watch.unseen();
        }
        now.addAndGet(RedispatchWatch.RETRY_NANOS - 1);
        assertThat(watch.delaying()).isFalse();
        now.addAndGet(1);
        assertThat(watch.delaying()).as("a minute later: held again, to look").isTrue();
        assertThat(watch.unseen()).as("still unseen: off again at once").isTrue();
        assertThat(watch.delaying()).isFalse();

        now.addAndGet(RedispatchWatch.RETRY_NANOS);
        assertThat(watch.delaying()).isTrue();
        watch.seen();
        now.addAndGet(1);
        assertThat(watch.unseen()).isFalse();
        assertThat(watch.delaying()).as("seen on the retry: proven").isTrue();
    }

    @Test
    void aDescriptorListingAsyncProvesTheMappingFromTheStart() {
        RedispatchWatch mapped = new RedispatchWatch(now::get, DescriptorDispatchers.Mapping.ASYNC);
        assertThat(mapped.proven()).isTrue();
        for (int i = 0; i < 10; i++) {
            assertThat(mapped.unseen()).isFalse();
        }
        assertThat(mapped.delaying()).isTrue();
    }

    @Test
    void aDescriptorMappingItWithoutAsyncSwitchesDelayingOffFromTheStartAndLooksAgainAMinuteLater() {
        RedispatchWatch unmapped = new RedispatchWatch(now::get, DescriptorDispatchers.Mapping.NOT_ASYNC);
        assertThat(unmapped.offFromStart()).isTrue();
        assertThat(unmapped.delaying()).isFalse();
        now.addAndGet(RedispatchWatch.RETRY_NANOS);
        assertThat(unmapped.delaying()).as("in case code added the mapping").isTrue();
        assertThat(unmapped.unseen()).as("one unseen: off again").isTrue();
        now.addAndGet(RedispatchWatch.RETRY_NANOS);
        assertThat(unmapped.delaying()).isTrue();
        unmapped.seen();
        assertThat(unmapped.proven()).isTrue();
    }
}
