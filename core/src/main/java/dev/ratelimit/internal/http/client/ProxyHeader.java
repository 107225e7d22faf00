package dev.ratelimit.internal.http.client;

import dev.ratelimit.http.RequestView;
import java.util.List;

/**
 * The one forwarding header the trusted proxies write ({@code forwardedHeader}): only it is read,
 * the other is ignored entirely, so a client cannot pick its key by sending the header the
 * proxies pass through untouched.
 */
public enum ProxyHeader {
    /** {@code X-Forwarded-For: client, proxy1, proxy2}: the default. */
    X_FORWARDED_FOR("X-Forwarded-For"),
    /** RFC 7239 {@code Forwarded: for=client, for="[2001:db8::1]:443"}. */
    FORWARDED("Forwarded");

    private final String headerName;

    ProxyHeader(String headerName) {
        this.headerName = headerName;
    }

    /** The header's name, e.g. {@code X-Forwarded-For}. */
    public String headerName() {
        return headerName;
    }

    /**
     * The header of that name, in any case.
     *
     * @throws IllegalArgumentException for any other name
     */
    public static ProxyHeader fromConfigName(String name) {
        for (ProxyHeader header : values()) {
            if (header.headerName.equalsIgnoreCase(name)) {
                return header;
            }
        }
        throw new IllegalArgumentException("not X-Forwarded-For or Forwarded: " + name);
    }

    /** The hops the request's header lines name, left to right. */
    List<Hop> hops(RequestView request) {
        List<String> lines = request.headers(headerName);
        return this == FORWARDED ? ForwardedHeader.hops(lines) : XForwardedForHeader.hops(lines);
    }

    @Override
    public String toString() {
        return headerName;
    }
}
