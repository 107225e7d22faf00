package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ratelimit.http.FakeRequest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hostile forwarding headers, generated from a fixed seed: whatever a client sends, resolving its
 * key never throws and gives either the peer or an address that appeared as a hop in the header,
 * never other text.
 */
class ForwardingHeaderFuzzTest {
    private static final long SEED = 0x5eed_14L;
    private static final int VALUES = 12_000;
    private static final String PEER = "10.0.0.1";
    private static final Pattern RUN = Pattern.compile("[0-9A-Fa-f:.]+");
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private static final String[] PIECES = {
        "for=", "For=", "for", "=", "\"", "\"", "[", "]", ":", ",", ", ", ";", ";;", "\\", "\\\"", " ", "\t",
        "proto=https", "by=", "unknown", "_hidden", "_", "localhost", "x",
        "10.0.0.2", "10.255.255.255", "192.168.1.7", "198.51.100.4", "203.0.113.", "1.2.3.4", "256.1.1.1",
        "0", "443", "65535", "123456", "::", "::1", "2001:db8::1", "2001:db8:ffff::7", "2001:db9::17", "fe80::1",
        "::ffff:198.51.100.9", "::ffff:10.0.0.3", "%eth0", "1:2:3:4:5:6:7:8", "ffff", ".",
        "\u0000", "\u0001", "\u0007", "\r", "\n", "\u007f", "\u0080", "\u00a0", "\u00e9", "\u00ff", "\u0100",
        "\u0661", "\u202e", "\ud83d\ude00", "\ud800",
    };

    @ParameterizedTest
    @EnumSource(ProxyHeader.class)
    void noHostileValueThrowsOrBecomesAKeyThatIsNotAHopAddress(ProxyHeader header) {
        TrustedProxies proxies = TrustedProxies.parse("10.0.0.0/8, 192.168.1.7, 2001:db8::/32").withHeader(header)
                .withIpv6Prefix(128);
        Random random = new Random(SEED + header.ordinal());
        int walkedPastThePeer = 0;
        for (int n = 0; n < VALUES; n++) {
            List<String> lines = new ArrayList<>();
            int lineCount = 1 + random.nextInt(3);
            for (int l = 0; l < lineCount; l++) {
                // The right-most lines are often a well-formed proxy's, so that walks reach the hostile ones.
                lines.add(l > 0 && random.nextBoolean() ? proxyLine(random, header) : hostileValue(random));
            }
            FakeRequest request = new FakeRequest().from(PEER);
            lines.forEach(line -> request.header(header.headerName(), line));
            String key;
            try {
                key = proxies.clientAddress(request);
            } catch (RuntimeException e) {
                throw new AssertionError("threw for " + describe(lines), e);
            }
            if (key.equals(PEER)) {
                continue;
            }
            walkedPastThePeer++;
            byte[] address = address(key);
            if (address == null || !appearsIn(address, lines)) {
                fail("key '%s' is not an address that appears in %s", key, describe(lines));
            }
        }
        assertThat(walkedPastThePeer).as("the fuzzing reaches addresses in the header, not only the peer")
                .isGreaterThan(VALUES / 10);
    }

    private static final String[] HOPS = {
        "10.0.0.2", "10.1.2.3", "192.168.1.7", "198.51.100.4", "203.0.113.77", "2001:db8::5", "2001:db9::17",
        "::ffff:10.9.8.7",
    };

    private static String proxyLine(Random random, ProxyHeader header) {
        StringBuilder line = new StringBuilder();
        int hops = 1 + random.nextInt(3);
        for (int h = 0; h < hops; h++) {
            String hop = HOPS[random.nextInt(HOPS.length)];
            boolean ipv6 = hop.indexOf(':') >= 0;
            line.append(h == 0 ? "" : ", ");
            if (header == ProxyHeader.FORWARDED) {
                line.append(ipv6 ? "for=\"[" + hop + "]\"" : "for=" + hop)
                        .append(random.nextBoolean() ? ";proto=https" : "");
            } else {
                line.append(ipv6 ? "[" + hop + "]:443" : hop);
            }
        }
        return line.toString();
    }

    private static String hostileValue(Random random) {
        StringBuilder value = new StringBuilder();
        int pieces = random.nextInt(14);
        for (int p = 0; p < pieces; p++) {
            switch (random.nextInt(10)) {
                case 0:
                    // A long run of one character or piece.
                    String run = random.nextBoolean() ? PIECES[random.nextInt(PIECES.length)]
                            : String.valueOf((char) random.nextInt(0x100));
                    int times = 1 + random.nextInt(random.nextInt(10) == 0 ? 5_000 : 60);
                    for (int t = 0; t < times && value.length() < 20_000; t++) {
                        value.append(run);
                    }
                    break;
                case 1:
                    value.append((char) random.nextInt(0x10000));
                    break;
                case 2:
                    // A well-formed element, so that walks go deep.
                    value.append(random.nextBoolean() ? ", " : "").append("for=\"[2001:db8::")
                            .append(Integer.toHexString(random.nextInt(0x10000))).append("]:80\"");
                    break;
                case 3:
                    value.append(random.nextBoolean() ? ", 10.0.0." : ", for=10.0.0.").append(random.nextInt(256));
                    break;
                default:
                    value.append(PIECES[random.nextInt(PIECES.length)]);
            }
        }
        return value.toString();
    }

    /** The key as an address: IPv4 as it is, IPv6 with its /128 taken off. */
    private static byte[] address(String key) {
        String literal = key.endsWith("/128") ? key.substring(0, key.length() - 4) : key;
        if (!RUN.matcher(literal).matches()) {
            return null;
        }
        return javaLiteral(literal);
    }

    /**
     * Whether the address is written in one of the lines (backslash escapes resolved): a run of
     * address characters, or such a run without a port after its first or last colon.
     */
    private static boolean appearsIn(byte[] address, List<String> lines) {
        for (String line : lines) {
            Matcher run = RUN.matcher(line.replaceAll("\\\\(.)", "$1"));
            while (run.find()) {
                String text = run.group();
                List<String> candidates = new ArrayList<>(List.of(text));
                if (text.indexOf(':') >= 0) {
                    candidates.add(text.substring(0, text.indexOf(':')));
                    candidates.add(text.substring(0, text.lastIndexOf(':')));
                }
                for (String candidate : candidates) {
                    byte[] bytes = javaLiteral(candidate);
                    if (bytes != null && Arrays.equals(bytes, address)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Java's own parse of a literal, as an independent oracle: only on text that cannot be a name. */
    private static byte[] javaLiteral(String text) {
        if (text.length() > 45 || !(IPV4.matcher(text).matches() || (text.indexOf(':') >= 0
                && RUN.matcher(text).matches()))) {
            return null;
        }
        try {
            return InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static String describe(List<String> lines) {
        StringBuilder text = new StringBuilder();
        for (String line : lines) {
            String shown = line.length() > 300 ? line.substring(0, 300) + "…(" + line.length() + " chars)" : line;
            StringBuilder escaped = new StringBuilder();
            shown.chars().forEach(c -> escaped.append(c < 0x20 || c > 0x7e ? String.format("\\u%04x", c)
                    : String.valueOf((char) c)));
            text.append("[").append(escaped).append("] ");
        }
        return text.toString();
    }
}
