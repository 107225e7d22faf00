package dev.ratelimit.testkit;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.redis.InJvmTransactions;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.RedisGateway;
import dev.ratelimit.internal.redisinjvm.InJvmRedis;
import dev.ratelimit.testing.RealRedisStep;
import dev.ratelimit.testing.RealRedisStep.KeyState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SetParams;

/**
 * A gateway on real Redis that starts every call from the kit's state and at the kit's instant:
 * before each call the keys it names are given the kit's values and remaining TTLs, and the call
 * runs in the same millisecond ({@link RealRedisStep}), a script with the kit's clock as its last
 * ARGV (the scripts' seam for tests), the transaction transport's sliding log with the kit's clock
 * as Redis' TIME. So a limiter on this gateway makes the decisions real Redis makes for the state
 * the kit holds, and each call's state after is kept to be compared with the kit's. Its clocks are
 * the kit's too, as the kit's store's are. Not thread-safe: one test's sequence.
 */
final class MirroredRedis implements RedisGateway {
    /** Scripts that read no clock ARGV: one more would be taken for another argument. */
    private static final Set<String> NO_CLOCK = Set.of("overrides.lua", "client-reset.lua", "concurrency-release.lua");
    /** A concurrency lease's name up to its counter: {@code lease:<limiter's random part>:}. */
    private static final Pattern LEASE = Pattern.compile("lease:[0-9a-f]{32}:");

    /** A call run on real Redis: what it was, its keys, and what real Redis left. */
    record Mirrored(String what, List<String> keys, List<KeyState> after) {
    }

    private final UnifiedJedis client;
    private final RealRedisStep step;
    private final InJvmRedis kit;
    final List<Mirrored> calls = new ArrayList<>();

    MirroredRedis(UnifiedJedis client, InJvmRedis kit) {
        this.client = client;
        this.step = new RealRedisStep(client);
        this.kit = kit;
    }

    private List<KeyState> kitState(List<String> keys) {
        return RealRedisStep.stateOf(kit::command, keys);
    }

    /**
     * The kit's state with its limiter's concurrency leases named as this side's limiter names them
     * (the prefix in {@code args}), so that a release here finds the lease the kit holds.
     */
    private List<KeyState> kitState(List<String> keys, List<String> args) {
        List<KeyState> states = kitState(keys);
        String ours = null;
        for (String arg : args) {
            Matcher lease = LEASE.matcher(arg);
            if (lease.lookingAt()) {
                ours = lease.group();
            }
        }
        if (ours == null) {
            return states;
        }
        List<KeyState> renamed = new ArrayList<>();
        for (KeyState state : states) {
            Object value = state.value();
            if (value instanceof List<?> entries) {
                List<String> named = new ArrayList<>();
                for (Object entry : entries) {
                    named.add(LEASE.matcher(entry.toString()).replaceFirst(Matcher.quoteReplacement(ours)));
                }
                value = named;
            }
            renamed.add(new KeyState(state.type(), value, state.pttl()));
        }
        return renamed;
    }

    private RealRedisStep.Result keep(String what, List<String> keys, RealRedisStep.Result result) {
        calls.add(new Mirrored(what, keys, result.after()));
        return result;
    }

    @Override
    public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        List<String> sent = new ArrayList<>(args);
        if (!NO_CLOCK.contains(script.toString())) {
            sent.add(Long.toString(Math.floorDiv(kit.nanoTime(), 1000L)));
        }
        RealRedisStep.Result result = keep(script.toString(), keys, step.run(script.sha1(), script.source(), keys, sent,
                kitState(keys, args)));
        if (result.failure() != null) {
            throw new RedisFailureException("real Redis refused " + script + ": " + result.failure(), null, true);
        }
        return result.longs();
    }

    /** SET NX PX and INCRBY in one MULTI, as TransactionGateway sends them; the PTTL read right after. */
    @Override
    public long[] incrementInWindow(String key, long permits, long windowMillis) {
        List<String> keys = List.of(key);
        RealRedisStep.Result result = keep("incrementInWindow", keys, step.run(keys, kitState(keys), tx -> {
            tx.set(key, "0", SetParams.setParams().nx().px(windowMillis));
            return tx.incrBy(key, permits);
        }));
        if (result.failure() != null) {
            throw new IllegalStateException("the parity sequences never meet another algorithm's state: " + result);
        }
        return new long[] {(Long) result.reply(), result.after().get(0).pttl()};
    }

    @Override
    public long[] readWindow(String key) {
        List<String> keys = List.of(key);
        RealRedisStep.Result result = keep("readWindow", keys, step.run(keys, kitState(keys), tx -> tx.get(key)));
        Object value = result.reply();
        long count = result.failure() != null || value == null ? 0 : Long.parseLong(value.toString());
        return count < 0 || result.failure() != null ? new long[] {0, -2}
                : new long[] {count, value == null ? -2 : result.after().get(0).pttl()};
    }

    /**
     * The transport's own sliding log, its commands sent to real Redis from the kit's state, TIME the
     * kit's. Its round trips take real time, in which a log with a TTL of a millisecond or two would
     * expire on real Redis though it lives at the kit's instant: the log is given without its TTL, and
     * one the commands leave without a TTL is read back with the TTL it had at that instant.
     */
    @Override
    public long[] slidingLogInTransaction(String key, long permits, long limit, long windowMicros, boolean consume) {
        List<String> keys = List.of(key);
        List<KeyState> before = kitState(keys);
        List<KeyState> lasting = new ArrayList<>();
        before.forEach(state -> lasting.add(new KeyState(state.type(), state.value(), state.pttl() > 0 ? -1 : state.pttl())));
        step.run(keys, lasting, tx -> tx.exists(key));
        long[] outcome = InJvmTransactions.slidingLog(this::realRaw, key, permits, limit, windowMicros, consume);
        List<KeyState> after = new ArrayList<>();
        List<KeyState> read = RealRedisStep.stateOf(this::realCommand, keys);
        for (int i = 0; i < read.size(); i++) {
            KeyState state = read.get(i);
            boolean untouched = state.pttl() == -1 && before.get(i).pttl() > 0;
            after.add(untouched ? new KeyState(state.type(), state.value(), before.get(i).pttl()) : state);
        }
        calls.add(new Mirrored("slidingLogInTransaction", keys, after));
        return outcome;
    }

    @Override
    public List<byte[]> hashInTransaction(String key, boolean delete, List<String> pairs, List<String> fields) {
        List<String> keys = List.of(key);
        step.run(keys, kitState(keys), tx -> tx.exists(key));
        return InJvmTransactions.hash(this::realRaw, key, delete, pairs, fields);
    }

    /** One command on real Redis, raw; TIME answered with the kit's clock. */
    private Object realRaw(List<byte[]> argv) {
        String name = new String(argv.get(0), StandardCharsets.US_ASCII);
        if (name.equalsIgnoreCase("TIME")) {
            long micros = Math.floorDiv(kit.nanoTime(), 1000L);
            return Arrays.<Object>asList(bytes(Long.toString(Math.floorDiv(micros, 1_000_000L))),
                    bytes(Long.toString(Math.floorMod(micros, 1_000_000L))));
        }
        try {
            return client.sendCommand(() -> argv.get(0), argv.subList(1, argv.size()).toArray(new byte[0][]));
        } catch (JedisDataException refused) {
            return refused;
        }
    }

    /** One command on real Redis, its byte strings decoded: for reading the state back. */
    private Object realCommand(String[] argv) {
        List<byte[]> raw = new ArrayList<>();
        for (String each : argv) {
            raw.add(bytes(each));
        }
        return decoded(realRaw(raw));
    }

    private static Object decoded(Object reply) {
        if (reply instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        if (reply instanceof List<?> list) {
            List<Object> each = new ArrayList<>();
            list.forEach(element -> each.add(decoded(element)));
            return each;
        }
        return reply;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean supportsTransactions() {
        return true;
    }

    @Override
    public void delete(List<String> keys) {
        keep("delete", keys, step.run(keys, kitState(keys), tx -> tx.del(keys.toArray(new String[0]))));
    }

    @Override
    public long nanoTime() {
        return kit.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
        return Math.floorDiv(kit.nanoTime(), 1_000_000L);
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "real Redis from the kit's state";
    }
}
