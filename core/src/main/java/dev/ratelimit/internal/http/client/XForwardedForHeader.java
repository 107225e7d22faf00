package dev.ratelimit.internal.http.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The hops of {@code X-Forwarded-For} header lines: elements separated by commas (optional blanks
 * around them), each one of
 *
 * <pre>
 * IPv4address [ ":" port ] / IPv6address / "[" IPv6address "]" [ ":" port ] / "unknown"     ; port = 1*5DIGIT
 * </pre>
 *
 * <p>Each element is one hop, in order; an element that is none of these (empty, a name, a zone,
 * control characters, anything else) is {@link Hop#MALFORMED}. There is no quoting, so a bad
 * element cannot hide its neighbours.
 */
final class XForwardedForHeader {
    private XForwardedForHeader() {
    }

    /** The hops of every line, left to right, the lines in the order they came. */
    static List<Hop> hops(List<String> lines) {
        List<Hop> hops = new ArrayList<>();
        for (String line : lines) {
            if (line == null) {
                hops.add(Hop.MALFORMED);
                continue;
            }
            int start = 0;
            while (true) {
                int comma = line.indexOf(',', start);
                int end = comma < 0 ? line.length() : comma;
                hops.add(element(line, start, end));
                if (comma < 0) {
                    break;
                }
                start = comma + 1;
            }
        }
        return hops;
    }

    private static Hop element(String line, int from, int to) {
        while (from < to && isBlank(line.charAt(from))) {
            from++;
        }
        while (to > from && isBlank(line.charAt(to - 1))) {
            to--;
        }
        String element = line.substring(from, to);
        if (element.startsWith("[")) {
            int close = element.indexOf(']');
            if (close < 0 || element.indexOf(':') < 0 || element.indexOf(':') > close) {
                return Hop.MALFORMED;
            }
            if (close + 1 < element.length()
                    && !(element.charAt(close + 1) == ':' && ForwardedHeader.isPort(element, close + 2))) {
                return Hop.MALFORMED;
            }
            return Hop.address(IpLiteral.parse(element, 1, close));
        }
        if (element.equalsIgnoreCase("unknown")) {
            return Hop.UNKNOWN;
        }
        int colon = element.indexOf(':');
        if (colon >= 0 && element.indexOf(':', colon + 1) < 0) {
            // One colon: IPv4 and a port.
            return ForwardedHeader.isPort(element, colon + 1) && element.indexOf('.') >= 0
                    ? Hop.address(IpLiteral.parse(element, 0, colon)) : Hop.MALFORMED;
        }
        return Hop.address(IpLiteral.parse(element));
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }
}
