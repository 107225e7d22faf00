package dev.ratelimit.internal.http.client;

/**
 * IPv4 and IPv6 address literals, parsed by hand: never a DNS lookup, never an exception, whatever
 * the text. And the client key an address makes: IPv4 as dotted quads, IPv6 as its network of a
 * given prefix length in the canonical form of RFC 5952, e.g. {@code 2001:db8:1:2::/64}.
 */
final class IpLiteral {
    private IpLiteral() {
    }

    /**
     * The bytes of an IPv4 literal ({@code 192.0.2.1}) or an IPv6 literal ({@code 2001:db8::1},
     * {@code ::ffff:192.0.2.1}), or null for anything else (brackets, ports, zones, names). An
     * IPv4-mapped IPv6 address gives the IPv4 address's four bytes.
     */
    static byte[] parse(String text) {
        return text == null ? null : parse(text, 0, text.length());
    }

    /** {@link #parse(String)} of {@code text[from, to)}. */
    static byte[] parse(String text, int from, int to) {
        if (from >= to || to - from > 45) {
            return null;
        }
        for (int i = from; i < to; i++) {
            if (text.charAt(i) == ':') {
                return unmapped(ipv6(text, from, to));
            }
        }
        return ipv4(text, from, to);
    }

    /** Four parts of one to three decimal digits, each at most 255. */
    private static byte[] ipv4(String text, int from, int to) {
        byte[] bytes = new byte[4];
        int part = 0;
        int i = from;
        while (true) {
            int value = 0;
            int digits = 0;
            while (i < to && digits < 4 && isDigit(text.charAt(i))) {
                value = value * 10 + (text.charAt(i) - '0');
                digits++;
                i++;
            }
            if (digits == 0 || digits > 3 || value > 255) {
                return null;
            }
            bytes[part++] = (byte) value;
            if (part == 4) {
                return i == to ? bytes : null;
            }
            if (i >= to || text.charAt(i) != '.') {
                return null;
            }
            i++;
        }
    }

    /** RFC 4291 text: up to eight groups of one to four hex digits, one {@code ::}, an optional IPv4 tail. */
    private static byte[] ipv6(String text, int from, int to) {
        byte[] bytes = new byte[16];
        int filled = 0;
        int gap = -1;
        int i = from;
        if (text.startsWith("::", i)) {
            gap = 0;
            i += 2;
            if (i == to) {
                return bytes;
            }
        }
        while (true) {
            int start = i;
            int value = 0;
            while (i < to && i - start < 5 && hex(text.charAt(i)) >= 0) {
                value = value * 16 + hex(text.charAt(i));
                i++;
            }
            if (i < to && text.charAt(i) == '.') {
                // The last 32 bits written as IPv4.
                byte[] tail = filled <= 12 ? ipv4(text, start, to) : null;
                if (tail == null) {
                    return null;
                }
                System.arraycopy(tail, 0, bytes, filled, 4);
                filled += 4;
                break;
            }
            if (i == start || i - start > 4 || filled == 16) {
                return null;
            }
            bytes[filled++] = (byte) (value >> 8);
            bytes[filled++] = (byte) value;
            if (i == to) {
                break;
            }
            if (text.charAt(i) != ':') {
                return null;
            }
            i++;
            if (i < to && text.charAt(i) == ':') {
                if (gap >= 0) {
                    return null;
                }
                gap = filled;
                i++;
                if (i == to) {
                    break;
                }
            } else if (i == to) {
                return null;
            }
        }
        if (gap < 0) {
            return filled == 16 ? bytes : null;
        }
        if (filled == 16) {
            return null;
        }
        int moved = filled - gap;
        System.arraycopy(bytes, gap, bytes, 16 - moved, moved);
        for (int k = gap; k < 16 - moved; k++) {
            bytes[k] = 0;
        }
        return bytes;
    }

    /** {@code ::ffff:a.b.c.d} is the IPv4 address {@code a.b.c.d}. */
    private static byte[] unmapped(byte[] ipv6) {
        if (ipv6 == null) {
            return null;
        }
        for (int i = 0; i < 10; i++) {
            if (ipv6[i] != 0) {
                return ipv6;
            }
        }
        if (ipv6[10] != (byte) 0xff || ipv6[11] != (byte) 0xff) {
            return ipv6;
        }
        return new byte[] {ipv6[12], ipv6[13], ipv6[14], ipv6[15]};
    }

    /**
     * The client key of an address: IPv4 as it is, IPv6 as the network of that prefix length,
     * e.g. {@code 2001:db8:1:2::/64} (also {@code /128}).
     */
    static String key(byte[] address, int ipv6Prefix) {
        if (address.length == 4) {
            return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "."
                    + (address[3] & 0xff);
        }
        byte[] network = address.clone();
        for (int bit = ipv6Prefix; bit < 128; bit++) {
            network[bit / 8] &= (byte) ~(0x80 >> (bit % 8));
        }
        return canonical(network) + "/" + ipv6Prefix;
    }

    /** RFC 5952: lower case, no leading zeros, the longest run of two or more zero groups (the first) as {@code ::}. */
    static String canonical(byte[] ipv6) {
        int[] groups = new int[8];
        for (int g = 0; g < 8; g++) {
            groups[g] = ((ipv6[2 * g] & 0xff) << 8) | (ipv6[2 * g + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int g = 0; g < 8; ) {
            if (groups[g] != 0) {
                g++;
                continue;
            }
            int start = g;
            while (g < 8 && groups[g] == 0) {
                g++;
            }
            if (g - start > bestLength) {
                bestStart = start;
                bestLength = g - start;
            }
        }
        StringBuilder text = new StringBuilder(39);
        for (int g = 0; g < 8; g++) {
            if (g == bestStart) {
                text.append("::");
                g += bestLength - 1;
                continue;
            }
            if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
                text.append(':');
            }
            text.append(Integer.toHexString(groups[g]));
        }
        return text.toString();
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** An ASCII hex digit's value, or -1 (also for any other digit Unicode knows). */
    static int hex(char c) {
        return c < 128 ? Character.digit(c, 16) : -1;
    }
}
