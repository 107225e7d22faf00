package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Transport;
import dev.ratelimit.internal.redis.InMemoryRedisGateway;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The transaction transport's reading of the overrides hash, field by field, as {@code overrides.lua}
 * reads it (OverridesParityIT checks the same values against the script on a real Redis), and its
 * writes over the in-memory gateway.
 */
class OverridesExchangeTest {

    @ParameterizedTest(name = "limit ''{0}'' reads as {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "5|5", "0|0", "-5|-5", "-0|0", "007|7", "1125899906842624|1125899906842624",
            "9007199254740991|9007199254740991", "-9007199254740991|-9007199254740991",
            "9007199254740992|-2", "-9007199254740992|-2", "99999999999999999999999|-2",
            "\"\"|-2", "-|-2", "--5|-2", "+5|-2", "\" 5\"|-2", "\"5 \"|-2", "5.0|-2", "5e0|-2", "0x5|-2",
            "inf|-2", "nan|-2", "ten|-2", "٥|-2"})
    void aLimitIsReadOnlyWhenWrittenAsJavaWritesOne(String text, long expected) {
        assertThat(OverridesExchange.limit(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
    }

    @Test
    void anAbsentFieldIsNone() {
        assertThat(OverridesExchange.limit(null)).isEqualTo(-1);
        assertThat(OverridesExchange.enforce(null)).isEqualTo(-1);
    }

    @Test
    void aLimitWithABinaryByteIsUnreadable() {
        assertThat(OverridesExchange.limit(new byte[] {'5', 0})).isEqualTo(-2);
        assertThat(OverridesExchange.limit(new byte[] {'5', (byte) 0xB5})).isEqualTo(-2);
    }

    @ParameterizedTest(name = "enforce ''{0}'' reads as {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "true|1", "false|0", "TRUE|-2", "True|-2", "\" true\"|-2", "1|-2", "yes|-2", "\"\"|-2"})
    void enforceIsReadOnlyAsTrueOrFalse(String text, long expected) {
        assertThat(OverridesExchange.enforce(text.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
    }

    @Test
    void theTransactionSetsReadsAndClearsTheHashWithoutAScript() {
        InMemoryRedisGateway redis = new InMemoryRedisGateway();
        OverridesExchange exchange = OverridesExchange.of(Transport.TRANSACTION, redis);

        OverridesExchange.State set = exchange.exchange("k", "k:client-reset", "set", "limit", "7", "ops", 7L);
        OverridesExchange.State enforce = exchange.exchange("k", "k:client-reset", "set", "enforce", "false", "ops 2", 7L);
        OverridesExchange.State read = exchange.exchange("k", "k:client-reset", "read", "", "", "", 7L);

        assertThat(set.limit).isEqualTo(7);
        assertThat(set.enforce).isNull();
        assertThat(set.origin).isEqualTo("ops");
        assertThat(enforce.sameAs(read)).isTrue();
        assertThat(read.limit).isEqualTo(7);
        assertThat(read.enforce).isFalse();
        assertThat(read.origin).as("the last setter").isEqualTo("ops 2");
        assertThat(redis.calls(InMemoryRedisGateway.Call.HASH_WRITE)).isEqualTo(2);
        assertThat(redis.calls(InMemoryRedisGateway.Call.EVAL)).as("no script").isZero();

        OverridesExchange.State cleared = exchange.exchange("k", "k:client-reset", "clear", "", "", "ops 3", 7L);
        assertThat(cleared.sameAs(OverridesExchange.State.NONE)).isTrue();
        assertThat(redis.hashInTransaction("k", false, Arrays.<String>asList(), Arrays.asList("limit", "origin")))
                .containsOnlyNulls();
    }

    @Test
    void theOriginIsCutAtTheScriptsByteBoundEvenWithinACharacter() {
        InMemoryRedisGateway redis = new InMemoryRedisGateway();
        StringBuilder origin = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            origin.append('\u20ac');
        }
        byte[] bytes = origin.toString().getBytes(StandardCharsets.UTF_8);
        OverridesExchange.State set = OverridesExchange.of(Transport.TRANSACTION, redis)
                .exchange("k", "k:client-reset", "set", "limit", "7", origin.toString(), 7L);
        assertThat(set.origin).isEqualTo(new String(bytes, 0, OverridesExchange.ORIGIN_BYTES, StandardCharsets.UTF_8))
                .endsWith("\ufffd");
        List<byte[]> stored = redis.hashInTransaction("k", false, Arrays.<String>asList(), Arrays.asList("origin"));
        assertThat(stored.get(0)).as("the hash keeps it whole").isEqualTo(bytes);
    }
}
