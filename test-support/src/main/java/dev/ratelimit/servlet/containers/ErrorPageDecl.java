package dev.ratelimit.servlet.containers;

/** An {@code <error-page>}: {@code <error-code>} and {@code <location>}. */
public record ErrorPageDecl(int errorCode, String location) {
    public ErrorPageDecl {
        if (!location.startsWith("/")) {
            throw new IllegalArgumentException("an error page location starts with '/': " + location);
        }
    }
}
