package dev.ratelimit.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void keyPartsAndClientKeysAreChecked() {
        assertThatThrownBy(() -> RedisKeys.checkKeyPart("policyName", "a{b", 1, 64))
                .hasMessage("policyName must be 1 to 64 printable ASCII characters without blanks or braces, but was 'a{b'");
        assertThatThrownBy(() -> RedisKeys.checkClientKey("key", ""))
                .hasMessage("key must be a non-empty string, but was ''");
        assertThatThrownBy(() -> RedisKeys.checkClientKey("key", null))
                .hasMessage("key must be a non-empty string, but was null");
    }
}
