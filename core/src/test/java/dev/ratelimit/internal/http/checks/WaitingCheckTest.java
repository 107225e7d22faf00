package dev.ratelimit.internal.http.checks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.CapturedErr;
import dev.ratelimit.internal.http.client.TrustedProxies;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@code maxDelay} requests the container cannot suspend: logged once, and on the status page while they come. */
class WaitingCheckTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final TrafficChecks checks = new TrafficChecks("export", TrustedProxies.none(), false, now::get);

    @Test
    void requestsThatCannotGoAsynchronousAreLoggedOnceAndCountedUnderTheirCode() {
        AtomicInteger asked = new AtomicInteger();
        String log = CapturedErr.during(() -> {
            for (int i = 0; i < 4; i++) {
                checks.waiting().refusedNotAsync(() -> "/export/report (servlet 'reports" + asked.incrementAndGet() + "')");
            }
        });

        assertThat(asked).as("where the request went, worked out once").hasValue(1);
        assertThat(log.split("NOT_ASYNC_SUPPORTED", -1)).as("one line").hasSize(2);
        assertThat(log).contains("WARN").contains("Rate limit policy 'export' [NOT_ASYNC_SUPPORTED]: maxDelay is set,"
                + " but requests to /export/report (servlet 'reports1') cannot wait").contains("<async-supported>");
        assertThat(checks.warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.code()).isEqualTo("NOT_ASYNC_SUPPORTED");
            assertThat(warning.requests()).isEqualTo(4);
            assertThat(warning.text()).startsWith("requests to /export/report (servlet 'reports1') cannot wait for"
                    + " their turn (maxDelay)").contains("(4 since start)", "<async-supported>true</async-supported>");
        });
    }

    @Test
    void aFilterNotMappedForAsyncIsLoggedOnceAndNamesTheDispatcher() {
        String log = CapturedErr.during(() -> {
            checks.waiting().notRedispatched();
            checks.waiting().notRedispatched();
        });

        assertThat(log.split("NO_ASYNC_DISPATCHER", -1)).as("one line").hasSize(2);
        assertThat(log).contains("WARN").contains("Rate limit policy 'export' [NO_ASYNC_DISPATCHER]")
                .contains("<dispatcher>ASYNC</dispatcher>");
        assertThat(checks.warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.code()).isEqualTo("NO_ASYNC_DISPATCHER");
            assertThat(warning.requests()).isEqualTo(2);
            assertThat(warning.text()).contains("not mapped for the ASYNC dispatcher", "(maxDelay; 2 since start)",
                    "<dispatcher>ASYNC</dispatcher> to its filter-mapping");
        });
    }

    @Test
    void bothAreListedAfterTheOtherFindingsAndLastFiveMinutesAfterTheirLastRequest() {
        CapturedErr.during(() -> {
            checks.countedInSharedBucket("user");
            checks.waiting().notRedispatched();
            now.addAndGet(TimeUnit.MINUTES.toNanos(1));
            checks.waiting().refusedNotAsync(() -> "/export (servlet 'default')");
        });
        assertThat(checks.warnings()).extracting(ConfigWarning::code)
                .containsExactly("SHARED_BUCKET", "NOT_ASYNC_SUPPORTED", "NO_ASYNC_DISPATCHER");

        now.addAndGet(TimeUnit.MINUTES.toNanos(4) + 1);
        assertThat(checks.warnings()).extracting(ConfigWarning::code).as("five minutes after the last of each")
                .containsExactly("NOT_ASYNC_SUPPORTED");
        now.addAndGet(TimeUnit.MINUTES.toNanos(1));
        assertThat(checks.warnings()).isEmpty();

        String again = CapturedErr.during(checks.waiting()::notRedispatched);
        assertThat(again).as("logged once in a policy's life").isEmpty();
        assertThat(checks.warnings()).singleElement().satisfies(w -> assertThat(w.requests()).isEqualTo(2));
    }

    @Test
    void aDelayedRequestSeenAgainProvesTheMappingAndTheFindingIsGoneForGood() {
        String log = CapturedErr.during(() -> {
            checks.waiting().notRedispatched();
            checks.waiting().redispatched();
            checks.waiting().notRedispatched();
        });
        assertThat(log.split("NO_ASYNC_DISPATCHER", -1)).as("the one line before the proof").hasSize(2);
        assertThat(checks.warnings()).as("not shown once proven, whatever comes later").isEmpty();
    }
}
