package dev.ratelimit.internal.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a handler may report as {@code dev.ratelimit.usage}: whole numbers, as numbers or text, and nothing else. */
class UsageChargesTest {
    @Test
    void wholeNumbersOfAnyNumberTypeOrDecimalTextAreRead() {
        assertThat(UsageCharges.permits(50)).isEqualByComparingTo("50");
        assertThat(UsageCharges.permits(50L)).isEqualByComparingTo("50");
        assertThat(UsageCharges.permits((short) 3)).isEqualByComparingTo("3");
        assertThat(UsageCharges.permits(50.0)).isEqualByComparingTo("50");
        assertThat(UsageCharges.permits(1e20)).as("an absurd number is read, to be capped").isEqualByComparingTo("1e20");
        assertThat(UsageCharges.permits(new AtomicLong(7))).isEqualByComparingTo("7");
        assertThat(UsageCharges.permits(new BigInteger("123456789012345678901234567890")))
                .isEqualByComparingTo("123456789012345678901234567890");
        assertThat(UsageCharges.permits(new BigDecimal("4.000"))).isEqualByComparingTo("4");
        assertThat(UsageCharges.permits(" 12 ")).isEqualByComparingTo("12");
        assertThat(UsageCharges.permits("12.0")).isEqualByComparingTo("12");
        assertThat(UsageCharges.permits("0")).isEqualByComparingTo("0");
        assertThat(UsageCharges.permits("-3")).as("read, then refused as negative").isEqualByComparingTo("-3");
    }

    @Test
    void fractionsNotANumberAndOtherTypesAreNone() {
        assertThat(UsageCharges.permits(2.5)).isNull();
        assertThat(UsageCharges.permits("2.5")).isNull();
        assertThat(UsageCharges.permits(Double.NaN)).isNull();
        assertThat(UsageCharges.permits(Double.POSITIVE_INFINITY)).isNull();
        assertThat(UsageCharges.permits("abc")).isNull();
        assertThat(UsageCharges.permits("")).isNull();
        assertThat(UsageCharges.permits("1e3")).as("text is decimal digits only").isNull();
        assertThat(UsageCharges.permits("9".repeat(40))).as("no unbounded text").isNull();
        assertThat(UsageCharges.permits(new Object())).isNull();
        assertThat(UsageCharges.permits(true)).isNull();
    }
}
