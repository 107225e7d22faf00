package dev.ratelimit.internal.http.client;

import java.util.Locale;

/**
 * One hop a forwarding header names: the address of a client or proxy, as one proxy saw it, or a
 * hop that names no address (an obfuscated or unknown node, or text that does not parse), which
 * ends the walk back to the client. Immutable.
 */
final class Hop {
    /** What a hop is. */
    enum Kind {
        /** An IPv4 or IPv6 address. */
        ADDRESS,
        /** {@code unknown}: the proxy did not know (RFC 7239, section 6.2). */
        UNKNOWN,
        /** An obfuscated node such as {@code _hidden} (RFC 7239, section 6.3). */
        OBFUSCATED,
        /** Not what the header's grammar allows, or an element naming no node at all. */
        MALFORMED
    }

    static final Hop UNKNOWN = new Hop(Kind.UNKNOWN, null);
    static final Hop OBFUSCATED = new Hop(Kind.OBFUSCATED, null);
    static final Hop MALFORMED = new Hop(Kind.MALFORMED, null);

    private final Kind kind;
    private final byte[] address;

    private Hop(Kind kind, byte[] address) {
        this.kind = kind;
        this.address = address;
    }

    /** A hop at the address (from {@link IpLiteral#parse}); malformed when the address is null. */
    static Hop address(byte[] address) {
        return address == null ? MALFORMED : new Hop(Kind.ADDRESS, address);
    }

    /** The address's bytes (4 or 16; not to be changed), or null when the hop names no address. */
    byte[] address() {
        return address;
    }

    @Override
    public String toString() {
        if (kind != Kind.ADDRESS) {
            return kind.name().toLowerCase(Locale.ROOT);
        }
        return TrustedProxies.addressText(address);
    }
}
