package dev.ratelimit.internal.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class RedisKeysTest {

    @Test
    void shortPrintableKeysAreKeptAsTheHashTag() {
        assertThat(RedisKeys.key("ratelimit:", "api", "203.0.113.7")).isEqualTo("ratelimit:api:{203.0.113.7}");
        String longest = "a".repeat(RedisKeys.MAX_CLIENT_KEY_BYTES);
        assertThat(RedisKeys.clientPart(longest)).isEqualTo(longest);
    }

    @Test
    void longOrUnusualKeysBecomeADigest() {
        for (String unusual : new String[] {"a".repeat(129), "caf\u00e9", "new\nline", "del\u007f", "{tag}", "#x"}) {
            assertThat(RedisKeys.clientPart(unusual)).as(unusual).matches("#[A-Za-z0-9_-]{43}");
        }
        assertThat(RedisKeys.clientPart("caf\u00e9")).isEqualTo(RedisKeys.clientPart("caf\u00e9"))
                .isNotEqualTo(RedisKeys.clientPart("cafe\u0301"));
    }

    @Test
    void aDigestOfOneKeyIsNeverTheRawFormOfAnother() {
        String digest = RedisKeys.clientPart("x".repeat(500));
        assertThat(RedisKeys.clientPart(digest)).as("a raw key that looks like a digest is digested too")
                .isNotEqualTo(digest);
    }

    @Test
    void aDigestMadeBeforeIsMarkedOnceMoreNotDigestedAgain() {
        String secret = RedisKeys.digest("sk_live_secret");
        assertThat(RedisKeys.clientPart(secret)).as("the HTTP layer's digest of a secret, kept")
                .isEqualTo("#" + secret).hasSize(45).startsWith("##");
        assertThat(RedisKeys.key("ratelimit:", "api", secret)).isEqualTo("ratelimit:api:{#" + secret + "}");
    }

    @Test
    void noTwoKeysShareAClientPartWhateverLooksLikeADigest() {
        String digest = RedisKeys.digest("k1");
        String fromLongKey = RedisKeys.clientPart("x".repeat(500));
        String[] keys = {
            "k1", digest, "#" + digest, digest.substring(1), fromLongKey, "#" + fromLongKey,
            digest.substring(0, 43), digest + "A", "#" + "+".repeat(43), "#" + "a".repeat(42) + "=", "#missing",
        };
        Set<String> parts = new HashSet<>();
        for (String key : keys) {
            assertThat(parts.add(RedisKeys.clientPart(key))).as("the client part of %s is its own", key).isTrue();
        }
        for (String notQuiteADigest : new String[] {"#" + "+".repeat(43), "#" + "a".repeat(42) + "=", digest + "A"}) {
            assertThat(RedisKeys.clientPart(notQuiteADigest)).as(notQuiteADigest).matches("#[A-Za-z0-9_-]{43}");
        }
    }

    @Test
    void everyThreadDigestsAlike() throws Exception {
        String expected = RedisKeys.digest("caf\u00e9");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> digests = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                String other = "other-" + i;
                digests.add(pool.submit(() -> RedisKeys.digest(other).equals(RedisKeys.digest(other))
                        ? RedisKeys.digest("caf\u00e9") : "differs on one thread"));
            }
            for (Future<String> digest : digests) {
                assertThat(digest.get()).isEqualTo(expected);
            }
        } finally {
            pool.shutdown();
        }
        assertThat(expected).isEqualTo("#" + Base64.getUrlEncoder().withoutPadding().encodeToString(
                MessageDigest.getInstance("SHA-256").digest("caf\u00e9".getBytes(
                        StandardCharsets.UTF_8))));
    }

    @Test
    void keyPartsAndClientKeysAreChecked() {
        assertThatThrownBy(() -> RedisKeys.checkKeyPart("policyName", "a{b", 1, 64))
                .hasMessage("policyName must be 1 to 64 printable ASCII characters without blanks or braces, but was 'a{b'");
        assertThatThrownBy(() -> RedisKeys.checkClientKey("key", ""))
                .hasMessage("key must be a non-empty string, but was ''");
        assertThatThrownBy(() -> RedisKeys.checkClientKey("key", null))
                .hasMessage("key must be a non-empty string, but was null");
    }
}
