package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 7239 {@code Forwarded} lines to hops: the grammar, and what breaks it. */
class ForwardedHeaderTest {
    /** The hops of the lines, as text: addresses canonical, else unknown, obfuscated or malformed. */
    static List<String> hops(String... lines) {
        return ForwardedHeader.hops(Arrays.asList(lines)).stream().map(Hop::toString).collect(Collectors.toList());
    }

    @Test
    void tokensAndQuotedStringsGiveOneHopPerElement() {
        assertThat(hops("for=192.0.2.43")).containsExactly("192.0.2.43");
        assertThat(hops("for=\"192.0.2.43\"")).containsExactly("192.0.2.43");
        assertThat(hops("for=192.0.2.43, for=198.51.100.17")).containsExactly("192.0.2.43", "198.51.100.17");
        assertThat(hops("for=192.0.2.43,for=198.51.100.17")).containsExactly("192.0.2.43", "198.51.100.17");
        assertThat(hops("For=192.0.2.43;Proto=https;BY=203.0.113.43")).as("names are case-insensitive")
                .containsExactly("192.0.2.43");
        assertThat(hops("proto=http;for=192.0.2.60;by=\"[2001:db8::1]\"")).containsExactly("192.0.2.60");
        assertThat(hops("for=192.0.2.43 ; proto=http")).as("blanks around ';' are tolerated")
                .containsExactly("192.0.2.43");
        assertThat(hops("  for=192.0.2.43\t")).containsExactly("192.0.2.43");
    }

    @Test
    void portsAndIpv6BracketsAreReadInsideQuotes() {
        assertThat(hops("for=\"192.0.2.43:47011\"")).containsExactly("192.0.2.43");
        assertThat(hops("for=\"[2001:db8:cafe::17]\"")).containsExactly("2001:db8:cafe::17");
        assertThat(hops("for=\"[2001:db8:cafe::17]:4711\"")).containsExactly("2001:db8:cafe::17");
        assertThat(hops("for=\"[2001:DB8:0:0:0:0:0:1]:_port\"")).containsExactly("2001:db8::1");
        assertThat(hops("for=\"[::ffff:192.0.2.9]\"")).as("IPv4-mapped is the IPv4 address")
                .containsExactly("192.0.2.9");
        assertThat(hops("for=\"192.0.2.43:_obf\"")).containsExactly("192.0.2.43");
    }

    @Test
    void backslashEscapesAreUnescaped() {
        assertThat(hops("for=\"\\1\\9\\2.0.2.43\"")).containsExactly("192.0.2.43");
        assertThat(hops("for=\"[2001:db8::\\1]\"")).containsExactly("2001:db8::1");
        assertThat(hops("for=192.0.2.1;x=\"a\\\"b,c;d\"")).as("an escaped quote, commas and ';' inside quotes")
                .containsExactly("192.0.2.1");
        assertThat(hops("for=\"\\\"192.0.2.1\"")).as("an escaped quote is part of the value").containsExactly("malformed");
    }

    @Test
    void obfuscatedAndUnknownNodesAreNoAddresses() {
        assertThat(hops("for=unknown")).containsExactly("unknown");
        assertThat(hops("for=UNKNOWN, for=\"unknown:8080\"")).containsExactly("unknown", "unknown");
        assertThat(hops("for=_hidden, for=\"_SEVEN.17-x:_port\"")).containsExactly("obfuscated", "obfuscated");
        assertThat(hops("for=_")).containsExactly("malformed");
        assertThat(hops("for=localhost")).as("host names are no nodes").containsExactly("malformed");
        assertThat(hops("proto=https;by=10.0.0.1")).as("an element without for=").containsExactly("malformed");
    }

    /** A client writes this header: an element of many pairs is read once, a repeated name (any case) breaks it. */
    @Test
    void anElementOfThousandsOfPairsIsReadAndARepeatedNameInAnyCaseBreaksIt() {
        StringBuilder many = new StringBuilder("for=192.0.2.43");
        for (int i = 0; i < 20_000; i++) {
            many.append(";ext").append(i).append("=x");
        }
        assertThat(hops(many.toString())).containsExactly("192.0.2.43");
        assertThat(hops(many + ";EXT19999=y")).containsExactly("malformed");
        assertThat(hops("for=192.0.2.43;proto=http;PROTO=https")).containsExactly("malformed");
    }

    @Test
    void severalLinesAreOneListInOrder() {
        assertThat(hops("for=192.0.2.1, for=192.0.2.2", "for=\"[2001:db8::3]\"", "for=192.0.2.4"))
                .containsExactly("192.0.2.1", "192.0.2.2", "2001:db8::3", "192.0.2.4");
    }

    @Test
    void aMalformedLineIsOneMalformedHopAndLeavesTheOtherLinesAlone() {
        assertThat(hops("for=\"", "for=192.0.2.7")).containsExactly("malformed", "192.0.2.7");
        assertThat(hops("for=\"x", "for=192.0.2.7")).containsExactly("malformed", "192.0.2.7");
        assertThat(hops("for=\"x, for=\"[2001:db8::1]\"")).as("a proxy appending to a client's open quote")
                .containsExactly("malformed");
        assertThat(hops("for=192.0.2.1, for=\"x, for=192.0.2.2")).containsExactly("malformed");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
        "for=\"", "for=\"x", "for=\"x, for=\"[2001:db8::1]\"", "", "   ", ";;", "for=192.0.2.1;;proto=http",
        "for=192.0.2.1,,for=192.0.2.2", "for=192.0.2.1,", ",for=192.0.2.1", "for=", "for", "=192.0.2.1",
        "for =192.0.2.1", "for= 192.0.2.1", "for=192.0.2.1;for=192.0.2.2", "for=192.0.2.1 for=192.0.2.2",
        "for=192.0.2.1:80", "for=[2001:db8::1]", "for=\"[2001:db8::1\"", "for=\"2001:db8::1]\"",
        "for=\"[2001:db8::1]]\"", "for=\"[[2001:db8::1]\"", "for=\"2001:db8::1\"", "for=\"[192.0.2.1]\"",
        "for=\"[2001:db8::1]:\"", "for=\"[2001:db8::1]:123456\"", "for=\"192.0.2.1:\"", "for=\"192.0.2.1:x\"",
        "for=\"[fe80::1%eth0]\"", "for=\"192.0.2.1\"x", "for=\"192.0.2.1\"\"\"", "for=\"192.0.2.1\\\"",
        "for=\"192.0.2.1\u0000\"", "for=192.0.2.1\u0007", "for=\"192.0.2.1\r\n\"", "for=\"\u0001\"",
        "for=\"192.0.2.1\u0100\"", "for=\u00e9", "for=\"192.0.2.1\\\u0001\"", "for=256.0.0.1", "for=1.2.3",
        "for=1.2.3.4.5", "for=\"1.2.3.4 \"", "for=\"::::\"",
    })
    void malformedLinesGiveOnlyAMalformedHop(String line) {
        assertThat(hops(line)).containsExactly("malformed");
    }
}
