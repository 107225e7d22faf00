package dev.ratelimit.internal.http.checks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.CapturedErr;
import dev.ratelimit.internal.http.client.TrustedProxies;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SharedBucketCheckTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final TrafficChecks checks = new TrafficChecks("api", TrustedProxies.none(), false, now::get);

    @Test
    void nothingIsWrongBeforeARequestSharesTheBucket() {
        assertThat(checks.warnings()).isEmpty();
    }

    @Test
    void theFirstRequestInTheSharedBucketIsLoggedOnceAndEveryOneCounted() {
        String log = CapturedErr.during(() -> {
            for (int i = 0; i < 5; i++) {
                checks.countedInSharedBucket("header:X-Api-Key");
            }
        });

        assertThat(log.split("SHARED_BUCKET", -1)).as("one line").hasSize(2);
        assertThat(log).contains("WARN").contains("Rate limit policy 'api' [SHARED_BUCKET]: a request had no value for any"
                + " part of key 'header:X-Api-Key'").contains("init-param 'key', such as ip");
        assertThat(checks.warnings()).singleElement().satisfies(warning -> {
            assertThat(warning.code()).isEqualTo("SHARED_BUCKET");
            assertThat(warning.requests()).isEqualTo(5);
            assertThat(warning.text()).startsWith("5 requests since start had no value for any part of key"
                    + " 'header:X-Api-Key' and shared one bucket").contains("init-param 'key'");
        });
    }

    @Test
    void theWarningLastsFiveMinutesAfterTheLastSuchRequest() {
        CapturedErr.during(() -> checks.countedInSharedBucket("user"));
        now.addAndGet(TimeUnit.MINUTES.toNanos(5));
        assertThat(checks.warnings()).as("at five minutes").hasSize(1);
        now.addAndGet(1);
        assertThat(checks.warnings()).as("past five minutes").isEmpty();

        String again = CapturedErr.during(() -> checks.countedInSharedBucket("user"));
        assertThat(again).as("logged once in a policy's life").isEmpty();
        assertThat(checks.warnings()).singleElement().satisfies(w -> assertThat(w.requests()).isEqualTo(2));
    }
}
