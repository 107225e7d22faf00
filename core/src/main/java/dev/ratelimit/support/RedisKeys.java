package dev.ratelimit.support;

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

    private RedisKeys() {
    }

    /** The key of one client under one policy. */
    public static String key(String keyPrefix, String policyName, String clientKey) {
        return keyPrefix + policyName + ":{" + clientPart(clientKey) + '}';
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
     * The guard a reset of a client leaves beside its key while quota leases of the client's old
     * state may still be on their way back: {@code <key>:{reset}}. It shares the key's Cluster slot
     * (the first braces are the hash tag), and no rule's key can take its name: rule names have no
     * braces.
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
     * The client key as stored: itself when it is short printable ASCII, otherwise {@code #} and
     * the unpadded base64url SHA-256 of its UTF-8 bytes (44 characters). Braces are digested too:
     * a {@code }} inside would end the hash tag early and could split one decision's keys across
     * Cluster slots.
     */
    public static String clientPart(String clientKey) {
        if (clientKey.length() > MAX_CLIENT_KEY_BYTES || clientKey.charAt(0) == DIGEST_MARK) {
            return digest(clientKey);
        }
        for (int i = 0; i < clientKey.length(); i++) {
            char c = clientKey.charAt(i);
            if (c < ' ' || c > '~' || c == '{' || c == '}') {
                return digest(clientKey);
            }
        }
        return clientKey;
    }

    /**
     * The client key as an operator may see it (a status page): itself when it is at most
     * {@link #MAX_CLIENT_KEY_BYTES} characters of printable ASCII (a digest the HTTP pipeline made of
     * a secret stays that digest), otherwise its digest, as Redis stores it. So what is shown is
     * bounded, and never more readable than what Redis holds.
     */
    public static String shownKey(String clientKey) {
        if (clientKey.length() > MAX_CLIENT_KEY_BYTES) {
            return digest(clientKey);
        }
        for (int i = 0; i < clientKey.length(); i++) {
            char c = clientKey.charAt(i);
            if (c < ' ' || c > '~') {
                return digest(clientKey);
            }
        }
        return clientKey;
    }

    /**
     * {@code #} and the unpadded base64url SHA-256 of the text's UTF-8 bytes: 44 characters that
     * say nothing readable about the text, whatever its length.
     */
    public static String digest(String clientKey) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(clientKey.getBytes(StandardCharsets.UTF_8));
            return DIGEST_MARK + Base64.getUrlEncoder().withoutPadding().encodeToString(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /**
     * Checks a policy name or similar key part: printable ASCII, no blanks or braces.
     *
     * @param what the argument's name for the message
     * @param minLength 0 if it may be empty
     * @throws IllegalArgumentException naming {@code what} and the value
     */
    public static String checkKeyPart(String what, String value, int minLength, int maxLength) {
        if (value == null || value.length() < minLength || value.length() > maxLength
                || !value.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '{' && c != '}')) {
            throw new BadArgument(what, what + " must be " + minLength + " to " + maxLength
                    + " printable ASCII characters without blanks or braces, but was "
                    + (value == null ? "null" : "'" + value + "'"));
        }
        return value;
    }

    /**
     * Checks a client key or item given by a caller.
     *
     * @throws IllegalArgumentException if it is null or empty
     */
    public static String checkClientKey(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must be a non-empty string, but was "
                    + (value == null ? "null" : "''"));
        }
        return value;
    }
}
