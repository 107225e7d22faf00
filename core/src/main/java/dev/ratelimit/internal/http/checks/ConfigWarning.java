package dev.ratelimit.internal.http.checks;

import java.util.Objects;

/**
 * One thing a policy's traffic showed to be wrong with its configuration, as the status page and
 * the log say it: a stable code (documented in {@code docs/troubleshooting.md}), a sentence that
 * names what happens and the setting to change, and how many requests showed it. Immutable.
 */
public final class ConfigWarning {
    private final String code;
    private final String text;
    private final long requests;

    public ConfigWarning(String code, String text, long requests) {
        this.code = Objects.requireNonNull(code, "code");
        this.text = Objects.requireNonNull(text, "text");
        this.requests = requests;
    }

    /** The stable code, e.g. {@code SHARED_BUCKET}: what the troubleshooting page is searched by. */
    public String code() {
        return code;
    }

    public String text() {
        return text;
    }

    /** The requests that showed it, since the policy started. */
    public long requests() {
        return requests;
    }

    @Override
    public String toString() {
        return code + ": " + text;
    }
}
