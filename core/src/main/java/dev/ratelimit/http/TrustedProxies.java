package dev.ratelimit.http;

import dev.ratelimit.internal.Immutable;
import dev.ratelimit.internal.BadArgument;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The proxies whose forwarding headers are believed, as CIDR blocks, and the rule that finds the
 * real client behind them.
 *
 * <p>Without trusted proxies, {@code X-Forwarded-For} and {@code Forwarded} are ignored: any client
 * can write them. With them, and only when the connecting peer is trusted, the client is the
 * right-most address in {@code X-Forwarded-For} (or, when absent, the {@code for=} values of
 * {@code Forwarded}) that is not itself a trusted proxy: every address to its right was appended by
 * a proxy we trust, while anything to its left may be forged by the client. Addresses are parsed
 * as literals only; nothing here ever does a DNS lookup.
 */
public final class TrustedProxies {
    private static final TrustedProxies NONE = new TrustedProxies(Immutable.listOf(), "none");
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV4_WITH_PORT = Pattern.compile("(\\d{1,3}(?:\\.\\d{1,3}){3}):\\d+");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]+");
    private static final Pattern FORWARDED_FOR = Pattern.compile("(?i)(?:^|[;,\\s])for\\s*=\\s*(\"[^\"]*\"|[^;,\\s]+)");

    private final List<Block> blocks;
    private final String text;

    private TrustedProxies(List<Block> blocks, String text) {
        this.blocks = blocks;
        this.text = text;
    }

    /** No proxy is trusted: the client is always the connecting peer. */
    public static TrustedProxies none() {
        return NONE;
    }

    /**
     * Parses CIDR blocks separated by commas or blanks, e.g. {@code 10.0.0.0/8, 192.168.1.7, ::1}
     * (a bare address is a block of one).
     *
     * @throws IllegalArgumentException naming the bad entry
     */
    public static TrustedProxies parse(String cidrs) {
        if (cidrs == null || cidrs.trim().isEmpty()) {
            return NONE;
        }
        String[] entries = cidrs.trim().split("[,\\s]+");
        List<Block> blocks = new ArrayList<>();
        for (String entry : entries) {
            blocks.add(Block.parse(entry, cidrs));
        }
        return new TrustedProxies(Collections.unmodifiableList(blocks), String.join(", ", entries));
    }

    /** Whether no proxy is trusted. */
    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** Whether the address (a literal) lies in a trusted block; false for anything that is not an address. */
    public boolean contains(String address) {
        byte[] bytes = literal(address);
        if (bytes == null) {
            return false;
        }
        for (Block block : blocks) {
            if (block.contains(bytes)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The client's address: the peer itself unless the peer is a trusted proxy, in which case the
     * right-most untrusted forwarded address (or the left-most one, when all are trusted).
     */
    public String clientAddress(RequestView request) {
        String peer = request.remoteAddress();
        if (blocks.isEmpty() || !contains(peer)) {
            return normalize(peer);
        }
        List<String> chain = forwardedChain(request);
        for (int i = chain.size() - 1; i >= 0; i--) {
            if (!contains(chain.get(i))) {
                return normalize(chain.get(i));
            }
        }
        return chain.isEmpty() ? normalize(peer) : normalize(chain.get(0));
    }

    private static List<String> forwardedChain(RequestView request) {
        List<String> chain = new ArrayList<>();
        List<String> xForwardedFor = request.headers("X-Forwarded-For");
        if (!xForwardedFor.isEmpty()) {
            for (String header : xForwardedFor) {
                for (String hop : header.split(",")) {
                    if (!hop.trim().isEmpty()) {
                        chain.add(stripPort(hop.trim()));
                    }
                }
            }
            return chain;
        }
        for (String header : request.headers("Forwarded")) {
            Matcher matcher = FORWARDED_FOR.matcher(header);
            while (matcher.find()) {
                String value = matcher.group(1);
                if (value.startsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                chain.add(stripPort(value.trim()));
            }
        }
        return chain;
    }

    /** {@code 1.2.3.4:80} and {@code [2001:db8::1]:443} lose their ports; brackets go. */
    private static String stripPort(String hop) {
        Matcher withPort = IPV4_WITH_PORT.matcher(hop);
        if (withPort.matches()) {
            return withPort.group(1);
        }
        if (hop.startsWith("[")) {
            int end = hop.indexOf(']');
            return end > 0 ? hop.substring(1, end) : hop;
        }
        return hop;
    }

    /** One canonical form per address, so that {@code ::1} and {@code 0:0:0:0:0:0:0:1} share a bucket. */
    private static String normalize(String address) {
        if (address == null) {
            return null;
        }
        byte[] bytes = literal(address);
        if (bytes == null) {
            return address.toLowerCase(Locale.ROOT);
        }
        try {
            return InetAddress.getByAddress(bytes).getHostAddress();
        } catch (UnknownHostException e) {
            return address;
        }
    }

    /** The bytes of an IPv4 or IPv6 literal, or null: never a DNS lookup. */
    static byte[] literal(String address) {
        if (address == null || address.isEmpty()) {
            return null;
        }
        String text = address;
        if (text.startsWith("[") && text.endsWith("]")) {
            text = text.substring(1, text.length() - 1);
        }
        int zone = text.indexOf('%');
        if (zone > 0) {
            text = text.substring(0, zone);
        }
        if (IPV4.matcher(text).matches()) {
            byte[] bytes = new byte[4];
            String[] parts = text.split("\\.");
            for (int i = 0; i < 4; i++) {
                int part = Integer.parseInt(parts[i]);
                if (part > 255) {
                    return null;
                }
                bytes[i] = (byte) part;
            }
            return bytes;
        }
        if (text.indexOf(':') >= 0 && IPV6.matcher(text).matches()) {
            try {
                // A string with ':' is parsed as an IPv6 literal or rejected, without any lookup.
                return InetAddress.getByName(text).getAddress();
            } catch (UnknownHostException e) {
                return null;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return text;
    }

    private static final class Block {
        final byte[] network;
        final int prefixLength;

        Block(byte[] network, int prefixLength) {
            this.network = network;
            this.prefixLength = prefixLength;
        }

        static Block parse(String entry, String all) {
            int slash = entry.indexOf('/');
            byte[] network = literal(slash < 0 ? entry : entry.substring(0, slash));
            int bits = network == null ? 0 : network.length * 8;
            int prefixLength = bits;
            if (network != null && slash >= 0) {
                try {
                    prefixLength = Integer.parseInt(entry.substring(slash + 1));
                } catch (NumberFormatException e) {
                    prefixLength = -1;
                }
            }
            if (network == null || prefixLength < 0 || prefixLength > bits) {
                throw new BadArgument("trustedProxies", "trustedProxies must list CIDR blocks such as 10.0.0.0/8 or "
                        + "2001:db8::/32 separated by commas, but '" + entry + "' in '" + all + "' is not one");
            }
            return new Block(network, prefixLength);
        }

        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int fullBytes = prefixLength / 8;
            for (int i = 0; i < fullBytes; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int restBits = prefixLength % 8;
            if (restBits == 0) {
                return true;
            }
            int mask = 0xff << (8 - restBits);
            return (address[fullBytes] & mask) == (network[fullBytes] & mask);
        }
    }
}
