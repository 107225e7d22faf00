package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.http.FakeRequest;
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
    void forwardedIsReadWhenTheProxiesWriteIt() {
        FakeRequest request = new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6;proto=http, for=\"[2001:db9::17]:4711\"")
                .header("Forwarded", "for=10.0.0.7");
        assertThat(proxies.withHeader(ProxyHeader.FORWARDED).clientAddress(request)).isEqualTo("2001:db9::/64");
        assertThat(proxies.withHeader(ProxyHeader.FORWARDED).withIpv6Prefix(128).clientAddress(request))
                .isEqualTo("2001:db9::17/128");
        assertThat(proxies.clientAddress(request)).as("X-Forwarded-For is the default: Forwarded is ignored")
                .isEqualTo("10.0.0.5");
    }

    @Test
    void theHeaderTheProxiesDoNotWriteIsIgnoredEntirely() {
        FakeRequest request = new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=198.51.100.4")
                .header("X-Forwarded-For", "6.6.6.6");
        assertThat(proxies.withHeader(ProxyHeader.FORWARDED).clientAddress(request)).isEqualTo("198.51.100.4");
        assertThat(proxies.clientAddress(request)).isEqualTo("6.6.6.6");
        FakeRequest onlyTheOther = new FakeRequest().from("10.0.0.5").header("X-Forwarded-For", "6.6.6.6");
        assertThat(proxies.withHeader(ProxyHeader.FORWARDED).clientAddress(onlyTheOther)).isEqualTo("10.0.0.5");
    }

    @Test
    void theWalkSkipsTrustedHopsFromTheRightAndStopsAtTheFirstUntrustedOne() {
        FakeRequest request = new FakeRequest().from("10.0.0.5")
                .header("X-Forwarded-For", "6.6.6.6, 7.7.7.7, 198.51.100.4, 192.168.1.7, [2001:db8::9]:443")
                .header("X-Forwarded-For", "10.9.9.9");
        assertThat(proxies.clientAddress(request)).isEqualTo("198.51.100.4");
        FakeRequest forwarded = new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6, for=\"[2001:db9::1]\";proto=https, for=10.1.1.1")
                .header("Forwarded", "for=\"10.2.2.2:8443\";by=_edge");
        assertThat(proxies.withHeader(ProxyHeader.FORWARDED).clientAddress(forwarded)).isEqualTo("2001:db9::/64");
    }

    @Test
    void aMalformedOrOpaqueHopEndsTheWalkAtTheLastTrustedHop() {
        TrustedProxies forwarded = proxies.withHeader(ProxyHeader.FORWARDED);
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5").header("Forwarded", "for=\"")))
                .isEqualTo("10.0.0.5");
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=\"x, for=\"[2001:db8::1]\""))).as("never the client's text 'x, for='")
                .isEqualTo("10.0.0.5");
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=\"x").header("Forwarded", "for=10.3.3.3")))
                .as("a trusted proxy's own line after the client's broken one is walked").isEqualTo("10.3.3.3");
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=\"x").header("Forwarded", "for=203.0.113.8")))
                .isEqualTo("203.0.113.8");
        for (String opaque : new String[] {"unknown", "_hidden", "localhost", "for=1.2.3.4", "", "1.2.3.4;"}) {
            FakeRequest request = new FakeRequest().from("10.0.0.5")
                    .header("X-Forwarded-For", "6.6.6.6, " + opaque + ", 10.4.4.4, 192.168.1.7");
            assertThat(proxies.clientAddress(request)).as(opaque).isEqualTo("10.4.4.4");
        }
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6, for=unknown, for=10.4.4.4"))).isEqualTo("10.4.4.4");
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6, for=_hidden"))).isEqualTo("10.0.0.5");
        assertThat(forwarded.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("Forwarded", "for=6.6.6.6, proto=https"))).as("an element without for=")
                .isEqualTo("10.0.0.5");
    }

    @Test
    void ipv6ClientsAreGroupedByTheirPrefix() {
        TrustedProxies none = TrustedProxies.none();
        assertThat(none.clientAddress(new FakeRequest().from("2001:db8:1:2::1")))
                .isEqualTo(none.clientAddress(new FakeRequest().from("2001:db8:1:2:ffff:ffff:ffff:ffff")))
                .isEqualTo("2001:db8:1:2::/64");
        assertThat(none.clientAddress(new FakeRequest().from("2001:db8:1:3::1"))).isEqualTo("2001:db8:1:3::/64");
        TrustedProxies each = none.withIpv6Prefix(128);
        assertThat(each.clientAddress(new FakeRequest().from("2001:db8:1:2::1"))).isEqualTo("2001:db8:1:2::1/128");
        assertThat(each.clientAddress(new FakeRequest().from("2001:db8:1:2::2"))).isEqualTo("2001:db8:1:2::2/128");
        assertThat(none.withIpv6Prefix(48).clientAddress(new FakeRequest().from("2001:db8:1:3::1")))
                .isEqualTo("2001:db8:1::/48");
        assertThat(none.clientAddress(new FakeRequest().from("::ffff:198.51.100.4"))).as("IPv4-mapped")
                .isEqualTo("198.51.100.4");
        assertThat(none.clientAddress(new FakeRequest().from("[2001:db8::1]"))).isEqualTo("2001:db8::/64");
        FakeRequest forwarded = new FakeRequest().from("10.0.0.5").header("X-Forwarded-For", "2001:db9:a:b:c::1");
        assertThat(proxies.clientAddress(forwarded)).isEqualTo("2001:db9:a:b::/64");
        assertThat(proxies.clientAddress(new FakeRequest().from("10.0.0.5")
                .header("X-Forwarded-For", "::ffff:198.51.100.4"))).isEqualTo("198.51.100.4");
        assertThatThrownBy(() -> none.withIpv6Prefix(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> none.withIpv6Prefix(129)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aPeerThatIsNoAddressIsKeptAsTheContainerGaveIt() {
        assertThat(proxies.clientAddress(new FakeRequest().from("Unix-Socket"))).isEqualTo("unix-socket");
        assertThat(proxies.clientAddress(new FakeRequest().from(null))).isNull();
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

    @Test
    void anUntrustedForwarderIsWhereTheWalkStopsWhenHopsRemainToItsLeft() {
        FakeRequest twoLayers = new FakeRequest().from("10.0.0.5").header("X-Forwarded-For", "6.6.6.6, 198.51.100.4");
        assertThat(TrustedProxies.addressText(proxies.untrustedForwarder(twoLayers))).isEqualTo("198.51.100.4");
        assertThat(proxies.untrustedForwarder(new FakeRequest().from("10.0.0.5").header("X-Forwarded-For",
                "198.51.100.4, 10.0.0.9"))).as("the client itself, the left-most hop").isNull();
        assertThat(proxies.untrustedForwarder(new FakeRequest().from("10.0.0.5").header("X-Forwarded-For",
                "6.6.6.6, unknown"))).as("a hop that names no address ends the walk").isNull();
        assertThat(proxies.untrustedForwarder(twoLayers.from("203.0.113.9"))).as("an untrusted peer").isNull();
        assertThat(TrustedProxies.none().untrustedForwarder(twoLayers.from("10.0.0.5"))).isNull();
    }

    @Test
    void addressesAreWrittenAsTrustedProxiesTakesThem() {
        assertThat(TrustedProxies.addressText("[0:0:0:0:0:0:0:1]")).isEqualTo("::1");
        assertThat(TrustedProxies.addressText("::ffff:10.1.2.3")).isEqualTo("10.1.2.3");
        assertThat(TrustedProxies.addressText("2001:DB8:0:0:0:0:0:7")).isEqualTo("2001:db8::7");
        assertThat(TrustedProxies.addressText("localhost")).isNull();
        assertThat(TrustedProxies.addressText((String) null)).isNull();
    }
}
