package dev.ratelimit.internal.http.client;

import dev.ratelimit.http.RequestView;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The proxies whose forwarding header is believed, as CIDR blocks, and the walk that finds the
 * real client behind them.
 *
 * <p>Without trusted proxies, forwarding headers are ignored: any client can write them. With
 * them, and only when the connecting peer is trusted, the one header the proxies write
 * ({@link ProxyHeader}: {@code X-Forwarded-For} unless set to {@code Forwarded}; the other is
 * ignored) is walked from the right: hops that are trusted proxies are skipped, and the first
 * untrusted address is the client, since every hop to its right was written by a proxy we trust
 * while anything to its left may be forged. A hop that names no address ({@code unknown},
 * {@code _hidden}, a name, anything malformed) ends the walk: the client is then the last address
 * a trusted proxy vouched for, at worst the peer. Never text from the request, never an
 * exception, never a DNS lookup: addresses are parsed as literals only.
 *
 * <p>The client's key is its address, IPv6 addresses grouped by {@code ipv6Prefix} (default
 * {@value #DEFAULT_IPV6_PREFIX}: one key per /64, e.g. {@code 2001:db8:1:2::/64}); an IPv4-mapped
 * IPv6 address counts as its IPv4 address.
 */
public final class TrustedProxies {
    /** The prefix length IPv6 clients are grouped by unless set. */
    public static final int DEFAULT_IPV6_PREFIX = 64;

    private static final TrustedProxies NONE = new TrustedProxies(AddressBlocks.NONE, "none",
            ProxyHeader.X_FORWARDED_FOR, DEFAULT_IPV6_PREFIX);

    private final AddressBlocks blocks;
    private final String text;
    private final ProxyHeader header;
    private final int ipv6Prefix;

    private TrustedProxies(AddressBlocks blocks, String text, ProxyHeader header, int ipv6Prefix) {
        this.blocks = blocks;
        this.text = text;
        this.header = header;
        this.ipv6Prefix = ipv6Prefix;
    }

    /** No proxy is trusted: the client is always the connecting peer. */
    public static TrustedProxies none() {
        return NONE;
    }

    /**
     * Parses CIDR blocks separated by commas or blanks, e.g. {@code 10.0.0.0/8, 192.168.1.7, ::1} (a bare address is
     * a block of one; a bad one is named). They write {@code X-Forwarded-For}; IPv6 clients are grouped per /64.
     */
    public static TrustedProxies parse(String cidrs) {
        if (cidrs == null || cidrs.trim().isEmpty()) {
            return NONE;
        }
        AddressBlocks blocks = AddressBlocks.parse("trustedProxies", cidrs);
        return new TrustedProxies(blocks, blocks.toString(), ProxyHeader.X_FORWARDED_FOR, DEFAULT_IPV6_PREFIX);
    }

    /** The same proxies, writing that header (the other is ignored). */
    public TrustedProxies withHeader(ProxyHeader header) {
        return new TrustedProxies(blocks, text, Objects.requireNonNull(header, "header"), ipv6Prefix);
    }

    /** The same proxies, grouping IPv6 clients by that prefix length, 1 to 128. */
    public TrustedProxies withIpv6Prefix(int prefixLength) {
        if (prefixLength < 1 || prefixLength > 128) {
            throw new IllegalArgumentException("an IPv6 prefix length is 1 to 128, not " + prefixLength);
        }
        return new TrustedProxies(blocks, text, header, prefixLength);
    }

    public ProxyHeader header() {
        return header;
    }

    public int ipv6Prefix() {
        return ipv6Prefix;
    }

    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** Whether the address (a literal) lies in a trusted block; false for anything that is not an address. */
    public boolean contains(String address) {
        byte[] bytes = literal(address);
        return blocks.contains(bytes);
    }

    /**
     * The client's key: the peer's address unless the peer is a trusted proxy, in which case the walk of the proxies'
     * header from the right finds it (see the class comment). IPv6 addresses are grouped by {@link #ipv6Prefix()}. A
     * peer that is not an address literal (which only the container can give) is its text in lower case.
     */
    public String clientAddress(RequestView request) {
        byte[] client = client(request);
        if (client == null) {
            String peer = request.remoteAddress();
            return peer == null ? null : peer.toLowerCase(Locale.ROOT);
        }
        return IpLiteral.key(client, ipv6Prefix);
    }

    /**
     * The client's address as bytes (4 or 16; an IPv4-mapped address as its 4), found as
     * {@link #clientAddress} finds it, or null when the peer is no address literal.
     */
    public byte[] client(RequestView request) {
        byte[] client = literal(request.remoteAddress());
        if (client == null) {
            return null;
        }
        if (!blocks.isEmpty() && blocks.contains(client)) {
            List<Hop> hops = header.hops(request);
            for (int i = hops.size() - 1; i >= 0; i--) {
                byte[] hop = hops.get(i).address();
                if (hop == null) {
                    break;
                }
                client = hop;
                if (!blocks.contains(hop)) {
                    break;
                }
            }
        }
        return client;
    }

    /**
     * The address the walk stopped at, when that address itself forwarded for others: the peer is trusted, and the
     * first untrusted hop from the right has hops to its left. Either a proxy layer missing from the trusted proxies
     * (then every client behind it has its key), or a client that wrote the header itself. Null otherwise, also when a
     * hop that names no address ended the walk. Reads the header once.
     */
    public byte[] untrustedForwarder(RequestView request) {
        byte[] peer = literal(request.remoteAddress());
        if (!blocks.contains(peer)) {
            return null;
        }
        List<Hop> hops = header.hops(request);
        for (int i = hops.size() - 1; i >= 0; i--) {
            byte[] hop = hops.get(i).address();
            if (hop == null) {
                return null;
            }
            if (!blocks.contains(hop)) {
                return i > 0 ? hop : null;
            }
        }
        return null;
    }

    /** An address as {@code trustedProxies} takes it ({@code 2001:db8::1}), or null for no address literal. */
    public static String addressText(String literal) {
        byte[] address = literal(literal);
        return address == null ? null : addressText(address);
    }

    /** The address (4 or 16 bytes) as {@code trustedProxies} takes it: dotted IPv4 or canonical IPv6. */
    public static String addressText(byte[] address) {
        return address.length == 4 ? IpLiteral.key(address, 32) : IpLiteral.canonical(address);
    }

    /** The bytes of an IPv4 or IPv6 literal, also in brackets and with a zone, or null: never a DNS lookup. */
    static byte[] literal(String address) {
        if (address == null || address.isEmpty()) {
            return null;
        }
        String text = address;
        if (text.startsWith("[") && text.endsWith("]")) {
            text = text.substring(1, text.length() - 1);
        }
        int zone = text.indexOf('%');
        if (zone > 0 && text.indexOf(':') >= 0) {
            text = text.substring(0, zone);
        }
        return IpLiteral.parse(text);
    }

    @Override
    public String toString() {
        return text;
    }
}
