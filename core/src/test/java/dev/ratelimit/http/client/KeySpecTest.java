package dev.ratelimit.http.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.support.RedisKeys;
import org.junit.jupiter.api.Test;

class KeySpecTest {
    private final TrustedProxies none = TrustedProxies.none();

    @Test
    void eachWordReadsItsPartOfTheRequest() {
        FakeRequest request = new FakeRequest().from("203.0.113.9").header("X-Api-Key", "k1");
        request.query.put("tenant", "acme");
        request.cookies.put("sid", "c1");
        request.userName = "alice";
        request.sessionId = "s1";
        assertThat(KeySpec.parse("ip", none).resolve(request)).isEqualTo("203.0.113.9");
        assertThat(KeySpec.parse("user", none).resolve(request)).isEqualTo("alice");
        assertThat(KeySpec.parse("global", none).resolve(request)).isEqualTo("global");
        // Values that may be secrets are digests from here on: Redis never sees them.
        assertThat(KeySpec.parse("session", none).resolve(request)).isEqualTo(RedisKeys.digest("s1"));
        assertThat(KeySpec.parse("header:X-Api-Key", none).resolve(request)).isEqualTo(RedisKeys.digest("k1"));
        assertThat(KeySpec.parse("param:tenant", none).resolve(request)).isEqualTo(RedisKeys.digest("acme"));
        assertThat(KeySpec.parse("cookie:sid", none).resolve(request)).isEqualTo(RedisKeys.digest("c1"));
        assertThat(KeySpec.parse("ip + header:X-Api-Key", none).resolve(request))
                .isEqualTo("203.0.113.9+" + RedisKeys.digest("k1"));
    }

    @Test
    void aSecretOfAnySizeBecomesADigestOfFixedLength() {
        StringBuilder huge = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            huge.append('k');
        }
        String key = KeySpec.parse("header:X-Api-Key", none)
                .resolve(new FakeRequest().header("X-Api-Key", huge.toString()));
        assertThat(key).hasSize(44).startsWith("#").doesNotContain("kkkk");
        assertThat(KeySpec.parse("header:X-Api-Key", none).resolve(new FakeRequest().header("X-Api-Key", "other")))
                .isNotEqualTo(key);
    }

    @Test
    void aMissingPartMeansNoKey() {
        FakeRequest request = new FakeRequest();
        assertThat(KeySpec.parse("header:X-Api-Key", none).resolve(request)).isNull();
        assertThat(KeySpec.parse("ip+header:X-Api-Key", none).resolve(request)).isNull();
        assertThat(KeySpec.parse("user", none).resolve(request)).isNull();
    }

    @Test
    void joinedValuesCannotBeConfusedWithEachOther() {
        FakeRequest one = new FakeRequest().header("A", "x+y").header("B", "z");
        FakeRequest two = new FakeRequest().header("A", "x").header("B", "y+z");
        KeySpec spec = KeySpec.parse("header:A+header:B", none);
        assertThat(spec.resolve(one)).isNotEqualTo(spec.resolve(two));
    }

    @Test
    void badWordsAreNamed() {
        assertThatThrownBy(() -> KeySpec.parse("header:", none))
                .hasMessage("key must be ip, user, session, global, header:NAME, param:NAME or cookie:NAME, joined "
                        + "with '+', but was 'header:' ('header:' names no header)");
        assertThatThrownBy(() -> KeySpec.parse("ip+address", none))
                .hasMessageEndingWith("but was 'ip+address' ('address' is not a key word)");
        assertThatThrownBy(() -> KeySpec.parse("ip+", none)).hasMessageEndingWith("('' is not a key word)");
    }
}
