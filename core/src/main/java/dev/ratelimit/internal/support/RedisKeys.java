package dev.ratelimit.internal.support;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Redis key names: {@code <keyPrefix><policyName>:{<clientKey>}}. The braces make the client key
 * the hash tag, so all keys of one decision land in one Cluster slot.
 */
public final class RedisKeys {
    /** Client keys longer than this (in UTF-8 bytes) are replaced by their digest. */
    public static final int MAX_CLIENT_KEY_BYTES = 128;
    /** Starts every digest; a raw key starting with it is digested too, so the two never collide. */
    static final char DIGEST_MARK = '#';
    /** A digest's length: {@link #DIGEST_MARK} and 43 base64url characters (256 bits). */
    static final int DIGEST_LENGTH = 44;
    /**
     * One SHA-256 per thread, reset by each digest: {@code MessageDigest.getInstance} looks the
     * provider up by reflection every time, which cost more than the hash on the request path. A
     * plain ThreadLocal of a JDK type: no class of the webapp's in a container thread's map, so
     * nothing holds the webapp's class loader after it is undeployed.
     */
    private static final ThreadLocal<MessageDigest> SHA_256 = new ThreadLocal<>();
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();
    /**
     * The characters of base64url, by ASCII code: a look-up, because comparing each of a digest's
     * random characters with the ranges mispredicts a branch about every other character, which
     * measured 400 ns a key against 50 ns for this.
     */
    private static final boolean[] BASE64URL_CHARS = new boolean[128];

    static {
        for (char c : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray()) {
            BASE64URL_CHARS[c] = true;
        }
    }

    private RedisKeys() {
    }

    /** The key of one client under one policy. */
    public static String key(String keyPrefix, String policyName, String clientKey) {
        String client = clientPart(clientKey);
        // Sized once: compiled for Java 8, a '+' would grow a 16-character builder three times per key.
        return new StringBuilder(keyPrefix.length() + policyName.length() + client.length() + 3)
                .append(keyPrefix).append(policyName).append(":{").append(client).append('}').toString();
    }

    /**
     * The key of one rule's client when each rule of a decision has a client of its own (several
     * dimensions: global, per user, per API key): {@code <keyPrefix><policyName>:{<policyName>}:<rule
     * name>:<clientKey>}. The policy name is the hash tag, so the keys of every dimension of a
     * decision share one Cluster slot and one script decides them all at once.
     */
    public static String dimensionKey(String keyPrefix, String policyName, String ruleName, String clientKey) {
        return keyPrefix + policyName + ":{" + policyName + "}:" + ruleName + ':' + clientPart(clientKey);
    }

    /**
     * The guard a reset of a client leaves beside its key while quota leases of the client's old state may still be on
     * their way back: {@code <key>:{reset}}. It shares the key's Cluster slot (the first braces are the hash tag), and
     * no rule's key can take its name: rule names have no braces.
     */
    public static String resetGuard(String clientRedisKey) {
        return clientRedisKey + ":{reset}";
    }

    /**
     * The penalty box of a client under a rule with a penalty: {@code <key>:{penalty}}, in the key's
     * Cluster slot as {@link #resetGuard} is; it holds the instant the client's penalty ends
     * ({@code limiter-penalty.lua}).
     */
    public static String penaltyBox(String clientRedisKey) {
        return clientRedisKey + ":{penalty}";
    }

    /**
     * The client key as stored: itself when it is short printable ASCII, otherwise {@code #} and the unpadded base64url
     * SHA-256 of its UTF-8 bytes (44 characters). Braces are digested too: a {@code }} inside would end the hash tag
     * early and could split one decision's keys across Cluster slots. A key that already has a digest's form
     * ({@link #digest}: the HTTP layer's secret parts) is not digested again but marked once more, {@code ##} and its
     * 43 characters: no raw key kept as it is starts with {@code #}, and no digest made here is 45 characters long, so
     * two different keys still never share a Redis key.
     */
    public static String clientPart(String clientKey) {
        if (clientKey.length() > MAX_CLIENT_KEY_BYTES || clientKey.charAt(0) == DIGEST_MARK) {
            return isDigest(clientKey) ? DIGEST_MARK + clientKey : digest(clientKey);
        }
        return printable(clientKey, true) ? clientKey : digest(clientKey);
    }

    /**
     * The client key as an operator may see it (a status page): itself when it is at most {@link #MAX_CLIENT_KEY_BYTES}
     * characters of printable ASCII (a digest the HTTP pipeline made of a secret stays that digest), otherwise its
     * digest, as Redis stores it. So what is shown is bounded, and never more readable than what Redis holds.
     */
    public static String shownKey(String clientKey) {
        return clientKey.length() <= MAX_CLIENT_KEY_BYTES && printable(clientKey, false) ? clientKey : digest(clientKey);
    }

    /** Whether every character is printable ASCII, and with {@code withoutBraces} none a brace. */
    private static boolean printable(String key, boolean withoutBraces) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < ' ' || c > '~' || withoutBraces && (c == '{' || c == '}')) {
                return false;
            }
        }
        return true;
    }

    /** {@code #} and the unpadded base64url SHA-256 of the UTF-8 bytes: 44 characters, nothing readable of the text. */
    public static String digest(String clientKey) {
        MessageDigest sha = SHA_256.get();
        if (sha == null) {
            try {
                sha = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JVM has SHA-256", e);
            }
            SHA_256.set(sha);
        }
        // digest(bytes) leaves it reset for the next call.
        byte[] hash = sha.digest(clientKey.getBytes(StandardCharsets.UTF_8));
        return DIGEST_MARK + BASE64URL.encodeToString(hash);
    }

    /** Whether a key has the form {@link #digest} gives: {@code #} and 43 base64url characters. */
    static boolean isDigest(String key) {
        if (key.length() != DIGEST_LENGTH || key.charAt(0) != DIGEST_MARK) {
            return false;
        }
        for (int i = 1; i < DIGEST_LENGTH; i++) {
            char c = key.charAt(i);
            if (c >= BASE64URL_CHARS.length || !BASE64URL_CHARS[c]) {
                return false;
            }
        }
        return true;
    }

    /** Checks a policy name or similar key part: printable ASCII, no blanks or braces; a bad one names {@code what}. */
    public static String checkKeyPart(String what, String value, int minLength, int maxLength) {
        if (value == null || value.length() < minLength || value.length() > maxLength
                || !value.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '{' && c != '}')) {
            throw new BadArgument(what, what + " must be " + minLength + " to " + maxLength
                    + " printable ASCII characters without blanks or braces, but was "
                    + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }

    /** Checks a client key or item given by a caller: IllegalArgumentException if it is null or empty. */
    public static String checkClientKey(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must be a non-empty string, but was "
                    + (value == null ? "null" : "''"));
        }
        return value;
    }
}
