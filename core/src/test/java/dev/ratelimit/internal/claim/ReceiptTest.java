package dev.ratelimit.internal.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.support.Immutable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReceiptTest {
    private static final Receipt.Issuer NOBODY = receipt -> false;

    @Test
    void eachReceiptOfALeaseIsClaimedOnceAndOnItsOwn() {
        Receipt lease = new Receipt(NOBODY, Immutable.listOf("ratelimit:api:{c}"), new long[] {1}, new long[] {7});
        Receipt first = lease.withPermits(3);
        Receipt second = lease.withPermits(2);

        assertThat(first.claim()).isTrue();
        assertThat(first.claim()).as("spent").isFalse();
        assertThat(second.claim()).as("another admission's receipt").isTrue();
        assertThat(lease.claim()).isTrue();
        assertThat(first.permits(0)).isEqualTo(3);
        assertThat(second.permits(0)).isEqualTo(2);
        assertThat(second.stamp(0)).isEqualTo(7);
        assertThat(second.keys()).containsExactly("ratelimit:api:{c}");
        assertThat(lease.permits(0)).as("the lease's own receipt is unchanged").isEqualTo(1);
    }

    @Test
    void whatTheIssuerPassesIsCopiedUnlessNothingCanChangeIt() {
        List<String> keys = new ArrayList<>(List.of("a", "b"));
        long[] permits = {1, 1};
        Receipt receipt = new Receipt(NOBODY, keys, permits, new long[] {0, 0});
        keys.set(0, "changed");
        permits[0] = 5;

        assertThat(receipt.keys()).containsExactly("a", "b");
        assertThat(receipt.permits(0)).isEqualTo(1);
        assertThatThrownBy(() -> receipt.keys().set(0, "x")).isInstanceOf(UnsupportedOperationException.class);
        List<String> one = Immutable.listOf("a");
        assertThat(new Receipt(NOBODY, one, new long[] {1}, new long[] {0}).keys()).isSameAs(one);
    }
}
