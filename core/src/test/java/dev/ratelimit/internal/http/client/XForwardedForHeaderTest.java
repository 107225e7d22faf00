package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code X-Forwarded-For} lines to hops. */
class XForwardedForHeaderTest {
    static List<String> hops(String... lines) {
        return XForwardedForHeader.hops(Arrays.asList(lines)).stream().map(Hop::toString)
                .collect(Collectors.toList());
    }

    @Test
    void everyFormOfAnAddressWithOrWithoutAPort() {
        assertThat(hops("192.0.2.1, 192.0.2.2:8080,2001:db8::3, [2001:db8::4], [2001:DB8:0::5]:443"))
                .containsExactly("192.0.2.1", "192.0.2.2", "2001:db8::3", "2001:db8::4", "2001:db8::5");
        assertThat(hops("::ffff:192.0.2.9, [::ffff:c000:20a]")).containsExactly("192.0.2.9", "192.0.2.10");
        assertThat(hops("\t192.0.2.1 \t")).containsExactly("192.0.2.1");
        assertThat(hops("unknown")).containsExactly("unknown");
    }

    @Test
    void severalLinesAreOneListInOrder() {
        assertThat(hops("192.0.2.1, 192.0.2.2", "2001:db8::3")).containsExactly("192.0.2.1", "192.0.2.2",
                "2001:db8::3");
    }

    @Test
    void aBadElementIsOneMalformedHopAndItsNeighboursStay() {
        assertThat(hops("evil\"\u0000, 192.0.2.1")).containsExactly("malformed", "192.0.2.1");
        assertThat(hops("192.0.2.1,,192.0.2.2")).containsExactly("192.0.2.1", "malformed", "192.0.2.2");
        assertThat(hops("")).containsExactly("malformed");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
        "", " ", "localhost", "_hidden", "for=192.0.2.1", "\"192.0.2.1\"", "192.0.2.1:", "192.0.2.1:123456",
        "192.0.2.1:http", "[192.0.2.1]", "[2001:db8::1", "2001:db8::1]", "[2001:db8::1]]", "[[2001:db8::1]",
        "[2001:db8::1]:", "[2001:db8::1]x", "fe80::1%eth0", "2001:db8::1:", "2001:db8:::1", "1:2:3:4:5:6:7:8:9",
        "256.1.1.1", "1.2.3", "1.2.3.4.", "1.2.3.4;", "1.2.3.4\u0007", "1.2.3.4\u00a0", "\u0661.2.3.4",
        "192.0.2.1 192.0.2.2", "0x7f.0.0.1", "::ffff:1.2.3.256",
    })
    void malformedElements(String element) {
        assertThat(hops(element)).containsExactly("malformed");
    }
}
