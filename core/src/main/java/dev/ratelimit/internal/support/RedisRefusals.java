package dev.ratelimit.internal.support;

import java.util.Locale;

/**
 * Error replies that waiting will not cure, and what an operator does about each: a user without
 * the right to run scripts, wrong credentials, a command the server does not know, a key of ours
 * holding another kind of value. Unlike a timeout or a lost connection, these stay until someone
 * changes the user, the settings or the server, so they are told apart from an outage.
 *
 * <p>Read from the error text alone, which is the same on Redis and Valkey but for the words around
 * the code (Valkey's drop "Redis"), so the codes and quoted command names are what is matched; and
 * as the text does not say which server answered, each remedy is worded to be true of both.
 */
public final class RedisRefusals {
    private RedisRefusals() {
    }

    /** Causes followed at most: enough for any client's wrapping, and no loop on a cyclic chain. */
    private static final int MOST_CAUSES = 16;

    /**
     * What to do about an error Redis answered, or null when it is not a lasting refusal (a
     * timeout, a failover's READONLY, a cluster moving slots: those may pass by themselves).
     *
     * @param failure read with its causes, outermost first; the first refusal found counts
     */
    public static String remedy(Throwable failure) {
        Throwable each = failure;
        for (int depth = 0; each != null && depth < MOST_CAUSES; depth++, each = each.getCause()) {
            String remedy = each.getMessage() == null ? null : remedy(each.getMessage());
            if (remedy != null) {
                return remedy;
            }
        }
        return null;
    }

    private static String remedy(String message) {
        String lower = message.toLowerCase(Locale.ROOT);
        boolean scripts = lower.contains("'eval") || lower.contains("'script") || lower.contains("'fcall");
        // A command or key a script uses, refused to its user: Redis words it without NOPERM, as
        // "The user executing the script can't ..." (6.2, 7.0) or "ACL failure in script: ..." (7.2
        // and newer, Valkey). It stays until someone changes the user, as NOPERM does.
        if (lower.contains("acl failure in script") || lower.contains("the user executing the script can't")) {
            return "the user the limiter connects as may run scripts but not every command or key they use: grant it "
                    + "the commands and keys docs/security.md lists for its transport (ACL SETUSER <user> "
                    + "~<keyPrefix>* +...), or connect as another user";
        }
        if (lower.contains("noperm")) {
            return scripts
                    ? "the user the limiter connects as may not run scripts: grant it +@scripting (ACL SETUSER <user> "
                            + "+@scripting), or set transport=transaction"
                    : "the user the limiter connects as lacks a permission the limiter needs: grant it the limiter's "
                            + "commands and keys, as docs/security.md lists them for its transport (ACL SETUSER <user> "
                            + "~<keyPrefix>* +...), or connect as another user";
        }
        if (lower.contains("wrongpass") || lower.contains("noauth")
                || lower.contains("invalid username-password")) {
            return "the server refused the credentials: check the user and password in the Redis URI the limiter "
                    + "connects with";
        }
        if (lower.contains("unknown command") || lower.contains("unknown subcommand")) {
            return scripts
                    ? "the server has scripting disabled or renamed: enable EVAL/EVALSHA, or set "
                            + "transport=transaction"
                    : "the server does not know a command the limiter needs: use Redis 6.2 or newer (or Valkey 7.2 "
                            + "or newer), without renamed or disabled commands";
        }
        if (lower.contains("wrongtype")) {
            return "a key under the limiter's key prefix holds another kind of value, written by something else: "
                    + "give the limiter a keyPrefix of its own";
        }
        return null;
    }
}
