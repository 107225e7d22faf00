package dev.ratelimit.internal.http.checks;

import dev.ratelimit.internal.http.client.ProxyHeader;
import dev.ratelimit.internal.http.client.TrustedProxies;
import java.util.Arrays;

/**
 * An address whose forwarding header is not believed, in one of the shapes
 * {@link UntrustedProxyCheck} looks for, with the header it sent first; and what the log and the
 * status page say of it once it carries most of the policy's traffic. Immutable.
 */
final class ProxySuspect {
    /** The peer sends a forwarding header but is not in {@code trustedProxies}. */
    static final int UNTRUSTED_PEER = 1;
    /** The peer is trusted but sends only the other header than {@code forwardedHeader} names. */
    static final int OTHER_HEADER = 2;
    /** The walk through trusted hops stops at an untrusted address with hops to its left. */
    static final int UNTRUSTED_HOP = 3;

    private final int kind;
    /** The peer's text (the first two shapes) or a hop's bytes. */
    private final Object address;
    private final ProxyHeader header;

    ProxySuspect(int kind, Object address, ProxyHeader header) {
        this.kind = kind;
        this.address = address;
        this.header = header;
    }

    /** Whether a request of that shape from that address is this suspect's (whatever header it sent). */
    boolean is(int kind, Object address) {
        return kind == this.kind && (address instanceof byte[] && this.address instanceof byte[]
                ? Arrays.equals((byte[]) address, (byte[]) this.address) : address.equals(this.address));
    }

    /** What happens, in the suspect's shape, and the setting to change; null for a peer no setting can name. */
    String finding(ProxyHeader configured, TrustedProxies proxies) {
        String at = kind == UNTRUSTED_HOP ? TrustedProxies.addressText((byte[]) address)
                : TrustedProxies.addressText((String) address);
        return at == null ? null : problem(at, configured) + " " + remedy(at, configured, proxies);
    }

    private String problem(String at, ProxyHeader configured) {
        switch (kind) {
            case UNTRUSTED_PEER:
                return "most requests come from " + at + " with " + article(header) + " header, but " + at
                        + " is not in trustedProxies, so the header is ignored and every client behind it is " + at
                        + ": they all share one limit.";
            case OTHER_HEADER:
                return "most requests come from the trusted proxy " + at + " with " + article(header)
                        + " header only, but forwardedHeader is " + configured + ", so " + header
                        + " is ignored and every client behind it is " + at + ": they all share one limit.";
            default:
                return "most requests come through the trusted proxies from " + at + ", which is not in"
                        + " trustedProxies but forwarded them for others (" + header + " names hops to its"
                        + " left), so every client behind it is " + at + ": they all share one limit.";
        }
    }

    private String remedy(String at, ProxyHeader configured, TrustedProxies proxies) {
        if (kind == OTHER_HEADER) {
            return "If " + at + " writes " + header + ", set init-param 'forwardedHeader' to it: "
                    + "forwardedHeader=" + header + ".";
        }
        String trust = proxies.isEmpty() ? at : proxies + ", " + at;
        return "If " + at + " is your proxy or load balancer, set init-param 'trustedProxies' to include it: "
                + "trustedProxies=" + trust + (header == configured ? "" : " and forwardedHeader=" + header)
                + "; if it is not, it is a client that writes the header itself: do not trust it.";
    }

    /** The header's name with its article: an X-Forwarded-For, a Forwarded. */
    private static String article(ProxyHeader header) {
        return (header == ProxyHeader.X_FORWARDED_FOR ? "an " : "a ") + header;
    }
}
