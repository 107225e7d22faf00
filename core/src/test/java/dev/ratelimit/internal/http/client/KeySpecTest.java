package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.support.RedisKeys;
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
    void aRequestWithNoPartOfItsKeyHasNone() {
        FakeRequest request = new FakeRequest();
        assertThat(KeySpec.parse("header:X-Api-Key", none).resolve(request)).isNull();
        assertThat(KeySpec.parse("user", none).resolve(request)).isNull();
        assertThat(KeySpec.parse("header:A+header:B", none).resolve(request)).isNull();
    }

    /** README's login rule: a post without a user is limited per address, not with every other such post. */
    @Test
    void aMissingPartIsKeyedByThePartsThereAre() {
        KeySpec spec = KeySpec.parse("ip+param:user", none);
        assertThat(spec.resolve(new FakeRequest().from("203.0.113.7"))).isEqualTo("203.0.113.7+" + KeySpec.ABSENT);
        assertThat(spec.resolve(new FakeRequest().from("203.0.113.8"))).isEqualTo("203.0.113.8+%none");
        assertThat(KeySpec.parse("header:A+ip", none).resolve(new FakeRequest().from("203.0.113.7")))
                .isEqualTo("%none+203.0.113.7");
        // A value that reads %none is written %25none: no client can name the absent part's bucket.
        FakeRequest literal = new FakeRequest().from("203.0.113.7");
        literal.userName = "%none";
        assertThat(KeySpec.parse("ip+user", none).resolve(literal)).isEqualTo("203.0.113.7+%25none");
        // An operator names it by leaving the part empty.
        assertThat(spec.keyOfValue("203.0.113.7+")).isEqualTo("203.0.113.7+%none");
        assertThat(spec.keyOfValue("+")).isNull();
        assertThat(spec.keyOfValue("alice+bob")).as("no address").isNull();
    }

    /** A browser's login form posts its fields in the body; the query string wins when both have one. */
    @Test
    void aParamIsReadFromTheQueryStringThenFromAFormBody() {
        KeySpec spec = KeySpec.parse("param:user", none);
        FakeRequest posted = new FakeRequest();
        posted.form.put("user", "alice");
        assertThat(spec.resolve(posted)).isEqualTo(RedisKeys.digest("alice"));
        posted.query.put("user", "bob");
        assertThat(spec.resolve(posted)).isEqualTo(RedisKeys.digest("bob"));
        assertThat(spec.keyOfValue("alice")).isEqualTo(RedisKeys.digest("alice"));
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

    /** What an operator types to find a client equals the key its requests get, for every word. */
    @Test
    void aValueAClientSendsKeysAsItsRequestsDo() {
        FakeRequest request = new FakeRequest().from("2001:db8:1:2:aaaa::7").header("X-Api-Key", "k+1%");
        request.query.put("tenant", "acme");
        request.cookies.put("sid", "c1");
        request.userName = "alice";
        request.sessionId = "s1";
        TrustedProxies by48 = none.withIpv6Prefix(48);
        assertThat(KeySpec.parse("ip", by48).keyOfValue("2001:db8:1:ffff::1"))
                .as("the same /48 network").isEqualTo(KeySpec.parse("ip", by48).resolve(request));
        assertThat(KeySpec.parse("ip", none).keyOfValue("[::ffff:203.0.113.9]")).isEqualTo("203.0.113.9");
        assertThat(KeySpec.parse("user", none).keyOfValue("alice")).isEqualTo(KeySpec.parse("user", none).resolve(request));
        for (String word : new String[] {"session", "header:X-Api-Key", "param:tenant", "cookie:sid"}) {
            KeySpec spec = KeySpec.parse(word, none);
            String sent = word.equals("session") ? "s1" : word.startsWith("header") ? "k+1%"
                    : word.startsWith("param") ? "acme" : "c1";
            assertThat(spec.keyOfValue(sent)).as(word).isEqualTo(spec.resolve(request)).startsWith("#");
        }
        KeySpec both = KeySpec.parse("ip+header:X-Api-Key", by48);
        assertThat(both.keyOfValue("2001:db8:1::9+k%2B1%25")).as("a + and a % in a value, escaped")
                .isEqualTo(both.resolve(request));
    }

    @Test
    void aValueNoClientOfTheKeyCanSendNamesNone() {
        assertThat(KeySpec.parse("global", none).keyOfValue("global")).as("never one client's").isNull();
        assertThat(KeySpec.parse("ip", none).keyOfValue("alice")).isNull();
        assertThat(KeySpec.parse("ip", none).keyOfValue("")).isNull();
        assertThat(KeySpec.parse("user", none).keyOfValue(null)).isNull();
        assertThat(KeySpec.parse("ip+user", none).keyOfValue("203.0.113.9")).as("one value for two words").isNull();
        assertThat(KeySpec.parse("ip+user", none).keyOfValue("203.0.113.9+a+b")).isNull();
        assertThat(KeySpec.parse("ip+user", none).keyOfValue("alice+203.0.113.9")).as("in the words' order").isNull();
    }

    @Test
    void aHostileValueIsKeyedAsAHostileRequestIs() {
        String huge = "k".repeat(100_000) + "\r\n<script>";
        assertThat(KeySpec.parse("header:X-Api-Key", none).keyOfValue(huge)).hasSize(44).startsWith("#")
                .isEqualTo(KeySpec.parse("header:X-Api-Key", none).resolve(new FakeRequest().header("X-Api-Key", huge)));
        assertThat(KeySpec.parse("ip", none).keyOfValue("[::1%eth0]")).isEqualTo(KeySpec.parse("ip", none)
                .resolve(new FakeRequest().from("[::1%eth0]")));
        assertThat(KeySpec.parse("ip", none).keyOfValue("999.1.1.1")).isNull();
        assertThat(KeySpec.parse("ip", none).keyOfValue(huge)).isNull();
        assertThat(KeySpec.parse("ip+user", none).keyOfValue("+")).isNull();
        assertThat(KeySpec.parse("global", none).countsAll()).isTrue();
        assertThat(KeySpec.parse("global+ip", none).countsAll()).isFalse();
    }

}
