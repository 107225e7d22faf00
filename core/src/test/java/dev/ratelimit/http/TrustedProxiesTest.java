package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TrustedProxiesTest {
    private final TrustedProxies proxies = TrustedProxies.parse("10.0.0.0/8, 192.168.1.7 2001:db8::/32");

    @Test
    void blocksContainTheirAddressesOnly() {
        assertThat(proxies.contains("10.200.3.4")).isTrue();
        assertThat(proxies.contains("11.0.0.1")).isFalse();
        assertThat(proxies.contains("192.168.1.7")).isTrue();
        assertThat(proxies.contains("192.168.1.8")).isFalse();
        assertThat(proxies.contains("2001:db8:ffff::1")).isTrue();
        assertThat(proxies.contains("2001:db9::1")).isFalse();
        assertThat(proxies.contains("::ffff:10.1.2.3")).as("IPv4-mapped").isTrue();
        assertThat(proxies.contains("localhost")).as("names are never looked up").isFalse();
        assertThat(TrustedProxies.parse("10.0.0.0/9").contains("10.128.0.1")).isFalse();
    }

    @Test
    void withoutTrustedProxiesForwardingHeadersAreIgnored() {
        FakeRequest request = new FakeRequest().from("203.0.113.9").header("X-Forwarded-For", "1.1.1.1");
        assertThat(TrustedProxies.none().clientAddress(request)).isEqualTo("203.0.113.9");
    }

    @Test
    void anUntrustedPeerCannotForgeItsAddress() {
        FakeRequest request = new FakeRequest().from("203.0.113.9").header("X-Forwarded-For", "1.1.1.1");
        assertThat(proxies.clientAddress(request)).isEqualTo("203.0.113.9");
    }

    @Test
    void behindTrustedProxiesTheRightMostUntrustedAddressIsTheClient() {
        FakeRequest request = new FakeRequest().from("10.0.0.5")
                .header("X-Forwarded-For", "6.6.6.6, 198.51.100.4")
                .header("X-Forwarded-For", "10.0.0.9");
        assertThat(proxies.clientAddress(request)).as("6.6.6.6 is a forgery to the left").isEqualTo("198.51.100.4");
    }

    @Test
    void whenEveryHopIsTrustedTheLeftMostIsTheClient() {
        FakeRequest request = new FakeRequest().from("10.0.0.5").header("X-Forwarded-For", "10.1.1.1, 10.2.2.2");
        assertThat(proxies.clientAddress(request)).isEqualTo("10.1.1.1");
        assertThat(proxies.clientAddress(new FakeRequest().from("10.0.0.5"))).isEqualTo("10.0.0.5");
    }

    @Test
    void forwardedIsReadWhenThereIsNoXForwardedFor() {
        FakeRequest request = new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6;proto=http, for=\"[2001:db9::17]:4711\"")
                .header("Forwarded", "for=10.0.0.7");
        assertThat(proxies.clientAddress(request)).isEqualTo("2001:db9:0:0:0:0:0:17");
    }

    @Test
    void portsAreDroppedAndAddressesNormalised() {
        FakeRequest request = new FakeRequest().from("10.0.0.5").header("X-Forwarded-For", "198.51.100.4:5555");
        assertThat(proxies.clientAddress(request)).isEqualTo("198.51.100.4");
        assertThat(TrustedProxies.none().clientAddress(new FakeRequest().from("::1")))
                .isEqualTo(TrustedProxies.none().clientAddress(new FakeRequest().from("0:0:0:0:0:0:0:1")));
    }

    @Test
    void badBlocksAreNamed() {
        assertThatThrownBy(() -> TrustedProxies.parse("10.0.0.0/8, 300.1.1.1/8"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("trustedProxies must list CIDR blocks such as 10.0.0.0/8 or 2001:db8::/32 separated by "
                        + "commas, but '300.1.1.1/8' in '10.0.0.0/8, 300.1.1.1/8' is not one");
        assertThatThrownBy(() -> TrustedProxies.parse("10.0.0.0/33")).hasMessageContaining("'10.0.0.0/33'");
        assertThatThrownBy(() -> TrustedProxies.parse("proxy.internal")).hasMessageContaining("'proxy.internal'");
    }
}
