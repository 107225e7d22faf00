package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Address literals by hand, and the keys they make. */
class IpLiteralTest {
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "0.0.0.0", "255.255.255.255", "192.0.2.1", "::", "::1", "1::", "2001:db8::1", "2001:DB8:0:0:1:0:0:1",
        "1:2:3:4:5:6:7:8", "1::8", "1:2:3:4:5:6::8", "::2:3:4:5:6:7:8", "::ffff:192.0.2.1", "::192.0.2.1",
        "64:ff9b::192.0.2.33", "1:2:3:4:5:6:192.0.2.1", "fe80::abcd:ef01", "2001:db8:0:0:0:0:2:1",
    })
    void literalsParseAsJavaParsesThem(String literal) throws Exception {
        assertThat(IpLiteral.parse(literal)).isEqualTo(InetAddress.getByName(literal).getAddress());
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {
        "", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.-4", "1.2.3.4 ", " 1.2.3.4", "1..2.3", "1234.1.1.1",
        ":", ":::", "1:2", ":1::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8", "12345::",
        "g::1", "::1%lo", "[::1]", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3", "::1.2.3.4:5", "1:", "1.2.3.4:80",
        "localhost", "example.com", "::ffff:256.1.1.1",
    })
    void anythingElseIsNull(String text) {
        assertThat(IpLiteral.parse(text)).isNull();
    }

    @ParameterizedTest(name = "{0}/{1}")
    @CsvSource({
        "192.0.2.1,                 64,  192.0.2.1",
        "::ffff:192.0.2.1,          64,  192.0.2.1",
        "2001:db8:1:2:aaaa:b:c:d,   64,  2001:db8:1:2::/64",
        "2001:db8:1:2:aaaa:b:c:d,   48,  2001:db8:1::/48",
        "2001:db8:1:2:aaaa:b:c:d,   56,  2001:db8:1::/56",
        "2001:db8:1:2ff:aaaa:b:c:d, 56,  2001:db8:1:200::/56",
        "2001:db8:1:2:aaaa:b:c:d,   128, 2001:db8:1:2:aaaa:b:c:d/128",
        "2001:db8:0:0:1:0:0:1,      128, 2001:db8::1:0:0:1/128",
        "2001:0:0:1:0:0:0:1,        128, 2001:0:0:1::1/128",
        "0:0:0:0:0:0:0:1,           64,  ::/64",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff, 1, 8000::/1",
        "2001:db8::1,               127, 2001:db8::/127",
        "1:0:0:2:0:0:0:3,           128, 1:0:0:2::3/128",
    })
    void keysAreIpv4AsItIsAndIpv6NetworksInCanonicalForm(String address, int prefix, String key) {
        assertThat(IpLiteral.key(IpLiteral.parse(address), prefix)).isEqualTo(key);
    }
}
