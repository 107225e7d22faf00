package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RedisFailureException;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.scripts.Evaluator;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scripted gateway's own promises, the ones the parity test against real Redis cannot reach or
 * that must hold whatever Redis does: Redis' expiry on the manual clock to the millisecond, Lua 5.1
 * where LuaJ differs (64-bit {@code %d}, {@code unpack}, guarded globals), Redis' conversions, and
 * the injected faults. ScriptedRedisGatewayParityIT holds the scripts' answers to real Redis.
 */
class ScriptedRedisGatewayTest {
    private static final Rule GCRA = Rule.of(Algorithm.GCRA, 10, Duration.ofSeconds(10));

    private final ScriptedRedisGateway redis = new ScriptedRedisGateway();

    /** A script of the test's own, loaded as the production ones are. */
    private static LuaScript script(String source) {
        try {
            java.lang.reflect.Constructor<LuaScript> make = LuaScript.class.getDeclaredConstructor(String.class, String.class);
            make.setAccessible(true);
            return make.newInstance("test-" + hex(source), source);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static String hex(String source) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
            return String.format("%02x%02x", digest[0], digest[1]);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private List<Long> run(String source, String... args) {
        return redis.eval(script(source), List.of("k"), List.of(args));
    }

    @Test
    void aKeyExpiresOnceTheClockIsPastItsLastMillisecond() {
        redis.command("SET", "k", "1", "PX", "100");
        redis.advance(Duration.ofMillis(100));
        assertThat(redis.command("PTTL", "k")).isEqualTo(0L);
        assertThat(redis.command("GET", "k")).as("at its expiry millisecond it still exists").isEqualTo("1");
        redis.advance(Duration.ofMillis(1));
        assertThat(redis.command("PTTL", "k")).isEqualTo(-2L);
        redis.command("SET", "k", "1");
        assertThat(redis.command("PTTL", "k")).isEqualTo(-1L);
        assertThat(redis.command("PEXPIRE", "k", "0")).as("an expiry now deletes").isEqualTo(1L);
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void timeAnswersTheManualClockInSecondsAndMicroseconds() {
        redis.advance(Duration.ofNanos(1_234_567_891));
        assertThat(redis.command("TIME")).isEqualTo(List.of("1700000001", "234567"));
    }

    @Test
    void luaFiveOneWhereLuajDiffers() {
        assertThat(run("return {tonumber(string.format('%d', 1700000000000000.7)), unpack({7, 8})}"))
                .as("%d of a 16-digit double, and unpack").containsExactly(1_700_000_000_000_000L, 7L, 8L);
        assertThat(run("return {#tostring(1e15), #string.format('%5.1f|%-3d|%03d', 2.25, 7, -4)}"))
                .as("tostring is %.14g (1e+15); %5.1f rounds half to even (  2.2|7  |-04)").containsExactly(5L, 13L);
        assertThatThrownBy(() -> run("x = 1 return {1}")).isInstanceOf(RedisFailureException.class)
                .hasMessageContaining("global");
        assertThatThrownBy(() -> run("return {y}")).hasMessageContaining("nonexistent global variable 'y'");
    }

    @Test
    void repliesConvertAsRedisConvertsThem() {
        redis.command("ZADD", "k", "1", "a");
        assertThat(run("local r = redis.pcall('GET', KEYS[1]) return {r.err and 1 or 0}")).as("WRONGTYPE as {err=...}")
                .containsExactly(1L);
        assertThat(run("return {redis.call('GET', 'missing') == false and 1 or 0, 3.9, -3.9, true}"))
                .as("a nil bulk is false; numbers truncate; true is 1").containsExactly(1L, 3L, -3L, 1L);
        assertThat(run("return {1, 2, nil, 4}")).as("an array ends at its first nil").containsExactly(1L, 2L);
        assertThatThrownBy(() -> run("return redis.error_reply('ERR mine')")).hasMessageContaining("ERR mine");
        assertThatThrownBy(() -> run("return redis.call('INCRBY', KEYS[1], 1)")).isInstanceOf(RedisFailureException.class)
                .hasMessageContaining("WRONGTYPE").matches(e -> ((RedisFailureException) e).redisAnswered());
        assertThat(run("redis.call('ZADD', KEYS[1], 1700000000123456, 'b') return {tonumber(redis.call('ZSCORE', KEYS[1], 'b'))}"))
                .as("a number argument travels as %.17g, a score answers so").containsExactly(1_700_000_000_123_456L);
    }

    @Test
    void aLeaseIsTakenAndGivenBackByTheProductionScripts() {
        LuaEvaluator evaluator = new LuaEvaluator(redis, List.of(GCRA));
        Evaluator.Leased leased = evaluator.decideLeasing(List.of("c"), new long[] {1}, 100, 500_000, List.of());
        assertThat(leased.grant.permits()).as("a quarter of the 9 left").isEqualTo(2);
        long now = redis.nanoTime() / 1000;
        assertThat(redis.command("GET", "c")).isEqualTo("-" + (now + 3_000_000) + " " + now);

        assertThat(evaluator.giveBackAll(List.of(leased.grant.ticket(1)))).isEqualTo(1);

        assertThat(redis.command("GET", "c")).isEqualTo("-" + (now + 2_000_000) + " " + now);
    }

    @Test
    void aFailureHappensBeforeTheCallDoesAnythingAndALostReplyAfter() {
        LuaEvaluator evaluator = new LuaEvaluator(redis, List.of(GCRA));
        redis.faults().failNext(1);
        assertThatThrownBy(() -> evaluator.decide(List.of("c"), new long[] {1}, true))
                .isInstanceOf(RedisFailureException.class);
        assertThat(redis.keys()).isEmpty();

        redis.faults().loseNextReplies(1);
        assertThatThrownBy(() -> evaluator.decide(List.of("c"), new long[] {1}, true))
                .isInstanceOf(RedisFailureException.class);
        assertThat(redis.keys()).as("it ran").containsExactly("c");
        assertThat(redis.calls(ScriptedRedisGateway.Call.EVAL)).isEqualTo(2);
    }

    @Test
    void refundsHeldRunWhenReleasedAndAReplayedOneTwice() {
        LuaEvaluator evaluator = new LuaEvaluator(redis, List.of(GCRA));
        Evaluator.Leased leased = evaluator.decideLeasing(List.of("c"), new long[] {1}, 100, 500_000, List.of());
        long now = redis.nanoTime() / 1000;
        List<ScriptedRedisGateway.Outcome> heard = new ArrayList<>();
        redis.observe(call -> heard.add(call.outcome()));

        redis.faults().holdRefunds(true);
        assertThat(evaluator.giveBackAll(List.of(leased.grant.ticket(1)))).as("the caller had a failure").isZero();
        assertThat(redis.command("GET", "c")).isEqualTo("-" + (now + 3_000_000) + " " + now);
        assertThat(redis.releaseHeld(0)).containsExactly(1L);
        assertThat(redis.command("GET", "c")).isEqualTo("-" + (now + 2_000_000) + " " + now);

        redis.faults().holdRefunds(false);
        assertThat(evaluator.giveBackAll(List.of(leased.grant.ticket(1)))).as("gcra refuses the same rest again: its "
                + "permits are no longer in the state").isZero();
        LuaEvaluator windows = new LuaEvaluator(redis, List.of(Rule.of(Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(1))));
        Evaluator.Leased window = windows.decideLeasing(List.of("d"), new long[] {1}, 100, 500_000, List.of());
        assertThat(redis.command("GET", "d")).as("1 and a lease of 24").isEqualTo("25");
        redis.faults().replayNextRefund();
        windows.giveBackAll(List.of(window.grant.ticket(1)));
        assertThat(redis.command("GET", "d")).as("one give-back of one permit, applied twice").isEqualTo("23");
        assertThat(redis.faults().replayedRefunds()).isEqualTo(1);
        assertThat(heard).containsExactly(ScriptedRedisGateway.Outcome.HELD, ScriptedRedisGateway.Outcome.RELEASED,
                ScriptedRedisGateway.Outcome.ANSWERED, ScriptedRedisGateway.Outcome.ANSWERED,
                ScriptedRedisGateway.Outcome.ANSWERED, ScriptedRedisGateway.Outcome.REPLAYED);
    }

    @Test
    void sortedSetRangesAreRemovedByRankAndByScoreUnlessTrimsAreIgnored() {
        redis.command("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d");
        assertThat(redis.command("ZREMRANGEBYRANK", "z", "0", "1")).isEqualTo(2L);
        assertThat(redis.command("ZRANGE", "z", "0", "-1")).isEqualTo(List.of("c", "d"));
        redis.faults().ignoreTrims(true);
        assertThat(redis.command("ZREMRANGEBYSCORE", "z", "-inf", "3")).as("ignored").isEqualTo(0L);
        redis.faults().ignoreTrims(false);
        assertThat(redis.command("ZREMRANGEBYSCORE", "z", "-inf", "3")).isEqualTo(1L);
        assertThat(redis.command("ZRANGE", "z", "0", "-1")).isEqualTo(List.of("d"));
    }

    @Test
    void aRestartLosesEveryKeyAndAHeldRefundMayNeverLand() {
        LuaEvaluator evaluator = new LuaEvaluator(redis, List.of(GCRA));
        Evaluator.Leased leased = evaluator.decideLeasing(List.of("c"), new long[] {1}, 100, 500_000, List.of());
        List<ScriptedRedisGateway.Outcome> heard = new ArrayList<>();
        redis.observe(call -> heard.add(call.outcome()));
        redis.faults().holdRefunds(true);
        evaluator.giveBackAll(List.of(leased.grant.ticket(1)));
        assertThat(redis.heldKeys()).containsExactly("c");
        redis.dropHeld(0);
        assertThat(redis.faults().heldRefunds()).isZero();
        assertThat(heard).containsExactly(ScriptedRedisGateway.Outcome.HELD, ScriptedRedisGateway.Outcome.FAILED);
        redis.loseData();
        assertThat(redis.keys()).isEmpty();
    }

    @Test
    void anActionRunsInsideTheNextCallBeforeOrAfterIt() {
        List<String> seen = new ArrayList<>();
        redis.faults().beforeNextCall(() -> seen.add("before: " + redis.keys()));
        redis.faults().afterNextCall(() -> seen.add("after: " + redis.keys()));
        new LuaEvaluator(redis, List.of(GCRA)).decide(List.of("c"), new long[] {1}, true);
        assertThat(seen).containsExactly("before: []", "after: [c]");
    }
}
