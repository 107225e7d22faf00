package dev.ratelimit.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.RedisSettings;
import dev.ratelimit.RedisStore;
import dev.ratelimit.Transport;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redis.StoreAccess;
import dev.ratelimit.testing.RedisServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

/**
 * The overrides without a script ({@code transport=transaction}) against {@code overrides.lua}
 * itself on a real Redis: for every starting hash (none, as Java writes it, or as an operator might
 * write it by hand: not numbers, numbers past 2^53, binary bytes, a TTL, a key that is no hash, a
 * client-reset mark of any kind) and every operation (with hostile origins and values too), both answer the same state and leave the
 * same hash, field for field and byte for byte, with the same TTL (within a tolerance, as the two
 * keys are written a moment apart). Through both gateways: the store's own connections and a
 * caller's client.
 */
class OverridesParityIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /** A lone surrogate and a cut byte sequence are what hostile text looks like after Java's encoding. */
    private static final String HOSTILE = "op\u0000\r\n\"'{}\\ \ud800 \u20ac\u20ac\uD83D\uDE00";

    /** A hash as an operator left it: field, value, field, value, ... (bytes, so anything goes). */
    private static Consumer<byte[]> hash(byte[]... pairs) {
        return key -> {
            for (int i = 0; i < pairs.length; i += 2) {
                redis.client().hset(key, pairs[i], pairs[i + 1]);
            }
        };
    }

    /** The client-reset mark beside a hash, in its slot. */
    private static byte[] mark(byte[] key) {
        return b(new String(key, StandardCharsets.UTF_8) + ":mark");
    }

    private static String mark(String key) {
        return key + ":mark";
    }

    private static byte[] b(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String repeat(String part, int times) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < times; i++) {
            text.append(part);
        }
        return text.toString();
    }

    static Map<String, Consumer<byte[]>> startingHashes() {
        Map<String, Consumer<byte[]>> starts = new LinkedHashMap<>();
        starts.put("none", key -> { });
        starts.put("as Java writes", hash(b("limit"), b("40"), b("enforce"), b("false"), b("origin"), b("JMX on h")));
        for (String limit : new String[] {"", "-", "-7", "0", "007", "9007199254740991", "9007199254740992",
                "-9007199254740992", "123456789012345678901234567890", " 5", "5 ", "+5", "5.0", "5e0", "0x5", "inf",
                "-inf", "nan", "1e30", "ten"}) {
            starts.put("limit '" + limit + "'", hash(b("limit"), b(limit)));
        }
        for (String enforce : new String[] {"", "TRUE", "true ", "1", "maybe"}) {
            starts.put("enforce '" + enforce + "'", hash(b("enforce"), b(enforce)));
        }
        starts.put("a mark counting 12", key -> redis.client().set(mark(key), b("12"), SetParams.setParams().px(90_000)));
        starts.put("a mark without a TTL", key -> redis.client().set(mark(key), b("3")));
        starts.put("a mark that is no counter", key -> redis.client().set(mark(key), b("mark")));
        starts.put("a mark that is no string", key -> redis.client().hset(mark(key), b("f"), b("v")));
        starts.put("binary limit", hash(b("limit"), new byte[] {'5', 0, '5'}));
        starts.put("binary enforce", hash(b("enforce"), new byte[] {'t', 'r', 'u', 'e', 0}));
        starts.put("binary origin", hash(b("origin"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, (byte) 0xe2, (byte) 0x82}));
        starts.put("long origin", hash(b("origin"), b(repeat("\u20ac", 400))));
        starts.put("other fields", hash(b("extra"), b("kept"), b("limit"), b("9")));
        starts.put("a TTL set by hand", key -> {
            hash(b("limit"), b("12")).accept(key);
            redis.client().pexpire(key, 600_000);
        });
        return starts;
    }

    /** {op, field, value, origin}, as LiveOverrides sends them (and a few it never would). */
    static List<String[]> operations() {
        return Arrays.asList(
                new String[] {"read", "", "", ""},
                new String[] {"set", "limit", "25", "JMX on host-1 at 2024-05-01T10:00:00Z"},
                new String[] {"set", "enforce", "true", "ops"},
                new String[] {"set", "enforce", "false", HOSTILE},
                new String[] {"set", "limit", "1125899906842624", repeat("\u20ac", 200)},
                new String[] {"set", "limit", "not a number", "hostile value"},
                new String[] {"set", "origin", "x", "origin twice"},
                new String[] {"clear", "", "", "ops"},
                new String[] {"reset", "", "3600000", ""},
                new String[] {"reset", "", "60000", "an origin a reset never writes"},
                new String[] {"unknown", "limit", "3", "ignored"});
    }

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (String gateway : new String[] {"connect", "wrap"}) {
            for (Map.Entry<String, Consumer<byte[]>> start : startingHashes().entrySet()) {
                for (String[] op : operations()) {
                    cases.add(Arguments.of(gateway, start.getKey(), op[0], op[1], op[2], op[3]));
                }
            }
        }
        return cases.stream();
    }

    /** One store per gateway for all cases; a generous timeout, as the cases test what is answered, not when. */
    private static final Map<String, RedisStore> STORES = new LinkedHashMap<>();

    @BeforeAll
    static void openStores() {
        STORES.put("connect", RedisStore.connect(RedisSettings.builder(redis.uri()).timeout(Duration.ofSeconds(5))
                .build()));
        STORES.put("wrap", RedisStore.wrap(redis.client()));
    }

    @AfterAll
    static void closeStores() {
        STORES.values().forEach(RedisStore::close);
    }

    private static RedisGateway gateway(String gateway) {
        return StoreAccess.gateway(STORES.get(gateway));
    }

    @ParameterizedTest(name = "{0}: {1}, then {2} {3}")
    @MethodSource("cases")
    void theTransactionLeavesAndAnswersWhatTheScriptDoes(String gateway, String start, String op, String field,
            String value, String origin) {
        String tag = "{parity" + System.nanoTime() + "}";
        String scripted = redis.keyPrefix() + tag + ":lua";
        String transacted = redis.keyPrefix() + tag + ":tx";
        startingHashes().get(start).accept(b(scripted));
        startingHashes().get(start).accept(b(transacted));
        RedisGateway redisGateway = gateway(gateway);
        OverridesExchange.State byScript = OverridesExchange.of(Transport.LUA, redisGateway)
                .exchange(scripted, mark(scripted), op, field, value, origin, 7L);
        OverridesExchange.State byTransaction = OverridesExchange.of(Transport.TRANSACTION, redisGateway)
                .exchange(transacted, mark(transacted), op, field, value, origin, 7L);

        assertSameState(byTransaction, byScript);
        assertSameHash(transacted, scripted);
        assertSameMark(mark(transacted), mark(scripted));
    }

    /** A key that is no hash: both refuse with WRONGTYPE, unless they clear it; the key is left alike. */
    @ParameterizedTest(name = "{0}: a string, then {1}")
    @MethodSource("opsOnAString")
    void aKeyThatIsNoHashFailsOrClearsAlike(String gateway, String op, String field, String value, String origin) {
        String tag = "{wrongtype" + System.nanoTime() + "}";
        String scripted = redis.keyPrefix() + tag + ":lua";
        String transacted = redis.keyPrefix() + tag + ":tx";
        redis.client().set(scripted, "something else's");
        redis.client().set(transacted, "something else's");
        RedisGateway redisGateway = gateway(gateway);
        OverridesExchange lua = OverridesExchange.of(Transport.LUA, redisGateway);
        OverridesExchange transaction = OverridesExchange.of(Transport.TRANSACTION, redisGateway);
        if (op.equals("clear")) {
            assertSameState(transaction.exchange(transacted, mark(transacted), op, field, value, origin, 7L),
                    lua.exchange(scripted, mark(scripted), op, field, value, origin, 7L));
        } else {
            RedisFailureException byScript = catchThrowableOfType(RedisFailureException.class,
                    () -> lua.exchange(scripted, mark(scripted), op, field, value, origin, 7L));
            RedisFailureException byTransaction = catchThrowableOfType(RedisFailureException.class,
                    () -> transaction.exchange(transacted, mark(transacted), op, field, value, origin, 7L));
            assertThat(byScript.getMessage()).contains("WRONGTYPE");
            assertThat(byTransaction.getMessage()).contains("WRONGTYPE");
            assertThat(byTransaction.redisAnswered()).isEqualTo(byScript.redisAnswered()).isTrue();
            assertThat(byTransaction.remedy()).isEqualTo(byScript.remedy()).contains("keyPrefix of its own");
        }
        assertThat(redis.client().type(transacted)).isEqualTo(redis.client().type(scripted));
        if (!op.equals("clear")) {
            assertThat(redis.client().get(transacted)).as("a refused set wrote nothing").isEqualTo("something else's");
        }
    }

    static Stream<Arguments> opsOnAString() {
        List<Arguments> cases = new ArrayList<>();
        for (String gateway : new String[] {"connect", "wrap"}) {
            for (String[] op : operations()) {
                cases.add(Arguments.of(gateway, op[0], op[1], op[2], op[3]));
            }
        }
        return cases.stream();
    }

    private static void assertSameState(OverridesExchange.State actual, OverridesExchange.State expected) {
        assertThat(actual.limit).as("limit").isEqualTo(expected.limit);
        assertThat(actual.enforce).as("enforce").isEqualTo(expected.enforce);
        assertThat(actual.enforceUnreadable).as("enforce unreadable").isEqualTo(expected.enforceUnreadable);
        assertThat(actual.origin).as("origin").isEqualTo(expected.origin);
        assertThat(actual.clientReset).as("client-reset mark").isEqualTo(expected.clientReset);
    }

    private static void assertSameHash(String actual, String expected) {
        UnifiedJedis client = redis.client();
        assertThat(text(client.hgetAll(b(actual)))).as("fields").isEqualTo(text(client.hgetAll(b(expected))));
        assertSameTtl(actual, expected, "hash");
    }

    /** The marks alike: the same type and value, and a TTL within a tolerance, or none alike. */
    private static void assertSameMark(String actual, String expected) {
        UnifiedJedis client = redis.client();
        assertThat(client.type(actual)).as("mark's type").isEqualTo(client.type(expected));
        if (client.type(expected).equals("string")) {
            assertThat(client.get(actual)).as("mark").isEqualTo(client.get(expected));
        }
        assertSameTtl(actual, expected, "mark");
    }

    /** No TTL (or no key) alike, or TTLs within a tolerance, as the two keys are written a moment apart. */
    private static void assertSameTtl(String actual, String expected, String what) {
        long scriptTtl = redis.client().pttl(expected);
        long transactionTtl = redis.client().pttl(actual);
        if (scriptTtl < 0) {
            assertThat(transactionTtl).as("%s: no TTL, or no key, alike", what).isEqualTo(scriptTtl);
        } else {
            assertThat(transactionTtl).as("%s: the TTL alike", what).isBetween(scriptTtl - 2_000, scriptTtl + 2_000);
        }
    }

    /** Fields and values as comparable text: each byte shown, so binary values compare exactly. */
    private static Map<String, String> text(Map<byte[], byte[]> hash) {
        Map<String, String> text = new TreeMap<>();
        for (Map.Entry<byte[], byte[]> entry : hash.entrySet()) {
            text.put(Arrays.toString(entry.getKey()), Arrays.toString(entry.getValue()));
        }
        return text;
    }
}
