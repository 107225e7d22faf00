package dev.ratelimit.internal.http.client;

/**
 * One hop a forwarding header names: the address of a client or proxy, as one proxy saw it, or a
 * hop that names no address (an obfuscated or unknown node, or text that does not parse), which
 * ends the walk back to the client. Immutable.
 */
final class Hop {
    /** {@code unknown}: the proxy did not know (RFC 7239, section 6.2). */
    static final Hop UNKNOWN = new Hop("unknown", null);
    /** An obfuscated node such as {@code _hidden} (RFC 7239, section 6.3). */
    static final Hop OBFUSCATED = new Hop("obfuscated", null);
    /** Not what the header's grammar allows, or an element naming no node at all. */
    static final Hop MALFORMED = new Hop("malformed", null);

    /** What a hop without an address is. */
    private final String kind;
    private final byte[] address;

    private Hop(String kind, byte[] address) {
        this.kind = kind;
        this.address = address;
    }

    /** A hop at the address (from {@link IpLiteral#parse}); malformed when the address is null. */
    static Hop address(byte[] address) {
        return address == null ? MALFORMED : new Hop(null, address);
    }

    /** The address's bytes (4 or 16; not to be changed), or null when the hop names no address. */
    byte[] address() {
        return address;
    }

    @Override
    public String toString() {
        return address == null ? kind : TrustedProxies.addressText(address);
    }
}
