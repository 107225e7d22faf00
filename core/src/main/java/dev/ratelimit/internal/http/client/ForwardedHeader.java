package dev.ratelimit.internal.http.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code for=} hops of RFC 7239 {@code Forwarded} header lines, parsed by its grammar:
 *
 * <pre>
 * Forwarded         = forwarded-element *( OWS "," OWS forwarded-element )
 * forwarded-element = forwarded-pair *( OWS ";" OWS forwarded-pair )
 * forwarded-pair    = token "=" ( token / quoted-string )     ; each name once per element
 * quoted-string     = DQUOTE *( qdtext / "\" ( HTAB / SP / VCHAR / obs-text ) ) DQUOTE
 * node (for=)       = ( IPv4address / "[" IPv6address "]" / "unknown" / obfnode ) [ ":" ( port / obfport ) ]
 * </pre>
 *
 * <p>Each element gives one hop, in order: its {@code for=} node, or {@link Hop#MALFORMED} when
 * it has none. A line that breaks the grammar anywhere (an unterminated quote, a control
 * character, an empty element or pair, text after a quoted-string, a bare IPv6 address) gives a
 * single {@link Hop#MALFORMED} in place of all its elements: where a client's text ends in such a
 * line cannot be known, so none of it is believed. Stricter than RFC 7239 in one respect: empty
 * elements and empty pairs ({@code ,,} and {@code ;;}), which no proxy writes, are malformed too.
 */
final class ForwardedHeader {
    private final String text;
    private int at;

    private ForwardedHeader(String text) {
        this.text = text;
    }

    /** The hops of every line, left to right, the lines in the order they came. */
    static List<Hop> hops(List<String> lines) {
        List<Hop> hops = new ArrayList<>();
        for (String line : lines) {
            int mark = hops.size();
            if (line == null || !new ForwardedHeader(line).parse(hops)) {
                hops.subList(mark, hops.size()).clear();
                hops.add(Hop.MALFORMED);
            }
        }
        return hops;
    }

    /** Adds the line's hops; false when the line breaks the grammar. */
    private boolean parse(List<Hop> hops) {
        skipWhitespace();
        while (true) {
            Hop hop = element();
            if (hop == null) {
                return false;
            }
            hops.add(hop);
            skipWhitespace();
            if (at == text.length()) {
                return true;
            }
            if (text.charAt(at) != ',') {
                return false;
            }
            at++;
            skipWhitespace();
        }
    }

    /** One element's hop, or null when it breaks the grammar. */
    private Hop element() {
        // Names are tokens, ASCII: lower-cased they compare as equalsIgnoreCase does, and a set keeps
        // an element of thousands of pairs (a client writes this header) from costing their square.
        Set<String> names = new HashSet<>(8);
        String node = null;
        while (true) {
            String name = token();
            if (name == null || at == text.length() || text.charAt(at) != '=') {
                return null;
            }
            at++;
            String value = at < text.length() && text.charAt(at) == '"' ? quotedString() : token();
            if (value == null) {
                return null;
            }
            if (!names.add(name.toLowerCase(Locale.ROOT))) {
                return null;
            }
            if (name.equalsIgnoreCase("for")) {
                node = value;
            }
            int end = at;
            skipWhitespace();
            if (at < text.length() && text.charAt(at) == ';') {
                at++;
                skipWhitespace();
            } else {
                at = end;
                return node == null ? Hop.MALFORMED : node(node);
            }
        }
    }

    /** A token at the position, or null when there is none. */
    private String token() {
        int start = at;
        while (at < text.length() && isTokenChar(text.charAt(at))) {
            at++;
        }
        return at == start ? null : text.substring(start, at);
    }

    /** The unescaped content of the quoted-string at the position, or null when it is not one. */
    private String quotedString() {
        StringBuilder content = new StringBuilder();
        at++;
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return content.toString();
            }
            if (c == '\\') {
                if (at == text.length()) {
                    return null;
                }
                c = text.charAt(at++);
                if (!(c == '\t' || (c >= ' ' && c <= '~') || (c >= 0x80 && c <= 0xff))) {
                    return null;
                }
            } else if (!(c == '\t' || c == ' ' || c == '!' || (c >= '#' && c <= '[') || (c >= ']' && c <= '~')
                    || (c >= 0x80 && c <= 0xff))) {
                return null;
            }
            content.append(c);
        }
        return null;
    }

    private void skipWhitespace() {
        while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
            at++;
        }
    }

    /** The hop a {@code for=} value names. */
    static Hop node(String value) {
        String name;
        String port;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0 || value.indexOf(':') > close || value.indexOf(':') < 0) {
                return Hop.MALFORMED;
            }
            name = value.substring(0, close + 1);
            port = value.substring(close + 1);
        } else {
            int colon = value.indexOf(':');
            name = colon < 0 ? value : value.substring(0, colon);
            port = colon < 0 ? "" : value.substring(colon);
        }
        if (!port.isEmpty() && !(port.charAt(0) == ':' && (isPort(port, 1) || isObfuscated(port, 1)))) {
            return Hop.MALFORMED;
        }
        if (name.startsWith("[")) {
            // An IPv6 address, never an IPv4 one, in brackets.
            return Hop.address(IpLiteral.parse(name, 1, name.length() - 1));
        }
        if (name.equalsIgnoreCase("unknown")) {
            return Hop.UNKNOWN;
        }
        if (isObfuscated(name, 0)) {
            return Hop.OBFUSCATED;
        }
        return Hop.address(IpLiteral.parse(name));
    }

    /** {@code 1*5DIGIT} from the index to the end. */
    static boolean isPort(String text, int from) {
        int length = text.length() - from;
        if (length < 1 || length > 5) {
            return false;
        }
        for (int i = from; i < text.length(); i++) {
            if (!IpLiteral.isDigit(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** {@code "_" 1*( ALPHA / DIGIT / "." / "_" / "-" )} from the index to the end. */
    private static boolean isObfuscated(String text, int from) {
        if (text.length() - from < 2 || text.charAt(from) != '_') {
            return false;
        }
        for (int i = from + 1; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(isAlpha(c) || IpLiteral.isDigit(c) || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** RFC 9110 tchar. */
    private static boolean isTokenChar(char c) {
        return isAlpha(c) || IpLiteral.isDigit(c) || (c < 0x7f && "!#$%&'*+-.^_`|~".indexOf(c) >= 0);
    }
}
