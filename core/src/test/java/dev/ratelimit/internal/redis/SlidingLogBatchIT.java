package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.Tuple;

/**
 * Requests of one client decided together in one transaction ({@link SlidingLogTurns}' batches)
 * get what each would have got decided alone, one after another, on a real Redis: the same
 * admissions, remaining and log, and retry-after and reset-after up to the time that passed
 * between the lone decisions. Mixed costs, so that a denied request is followed by smaller ones that
 * still fit, and denials whose retry-after comes from the log read, from the batch's own
 * admissions, and from a log rebased near 2^52; on a connection of our own and through a caller's
 * client, whose transaction hands back replies read inside MULTI in its own way.
 */
class SlidingLogBatchIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final long WINDOW = TimeUnit.SECONDS.toMicros(10);
    /** Rounding of Redis' clock and PTTL's whole milliseconds, beside the time measured between two answers. */
    private static final long ROUNDING_MICROS = 2_000;

    private static Connection connection;

    /** Each try's session: on a connection of our own ({@code RedisStore.connect}), or in a caller's client's transaction ({@code wrap}). */
    enum Client {
        OWN, WRAPPED;

        SlidingLogTransactions.Sessions sessions(String key) {
            if (this == OWN) {
                return attempt -> attempt.apply(WatchedSession.over(connection));
            }
            return attempt -> {
                try (AbstractTransaction transaction = redis.client().transaction(false)) {
                    return attempt.apply(WatchedSession.over(transaction, key));
                }
            };
        }
    }

    @BeforeAll
    static void connect() {
        connection = new Connection(new HostAndPort(redis.host(), redis.port()));
    }

    @AfterAll
    static void close() {
        connection.close();
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void anEmptyLogAdmitsInOrderAndDeniesFromTheBatchsOwnAdmissions(Client client) {
        assertSameAsAlone(client, "empty", (key, now) -> { }, new long[] {3, 5, 2, 4, 1, 11}, 10);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aLogWithAnAnchorIsTrimmedAndDeniesFromTheEntriesRead(Client client) {
        assertSameAsAlone(client, "anchored", (key, now) -> {
            redis.client().zadd(key, now - 11_000_000, "4");
            redis.client().zadd(key, now - 8_000_000, "6");
            redis.client().zadd(key, now - 5_000_000, "9");
        }, new long[] {3, 4, 2, 1, 3}, 10);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void aLogNearTwoToTheFiftyTwoIsRebased(Client client) {
        long high = SlidingLogAttempt.REBASE_AT;
        assertSameAsAlone(client, "rebased", (key, now) -> {
            redis.client().zadd(key, now - 11_000_000, String.valueOf(high - 5));
            redis.client().zadd(key, now - 1_000_000, String.valueOf(high - 2));
        }, new long[] {2, 3, 9}, 10);
    }

    @ParameterizedTest
    @EnumSource(Client.class)
    void anotherAlgorithmsStateIsReplaced(Client client) {
        assertSameAsAlone(client, "string", (key, now) -> redis.client().set(key, "5"), new long[] {4, 4, 4}, 10);
    }

    private static void assertSameAsAlone(Client client, String name, BiConsumer<String, Long> prepare, long[] permits,
            long limit) {
        String together = redis.key(client + "-" + name + "-together");
        String alone = redis.key(client + "-" + name + "-alone");
        List<String> time;
        try (Jedis admin = new Jedis(redis.host(), redis.port())) {
            time = admin.time();
        }
        long now = Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
        prepare.accept(together, now);
        prepare.accept(alone, now);

        // The lone decisions come later than the batch: their times may differ by what passed between
        // (measured, so that a busy machine widens the bound by exactly its delay), never by more.
        long started = System.nanoTime();
        SlidingLogTransactions.Outcome[] batch = SlidingLogTransactions.decide(client.sessions(together), together, permits, limit,
                WINDOW, TimeUnit.SECONDS.toNanos(1));
        for (int i = 0; i < permits.length; i++) {
            SlidingLogTransactions.Outcome one = SlidingLogTransactions.decide(client.sessions(alone), alone, new long[] {permits[i]},
                    limit, WINDOW, TimeUnit.SECONDS.toNanos(1))[0];
            long slack = sinceMicros(started) + ROUNDING_MICROS;
            String request = "request " + i + " of " + permits[i];
            assertThat(batch[i].allowed).as(request).isEqualTo(one.allowed);
            assertThat(batch[i].contended).as(request).isFalse();
            assertThat(batch[i].remaining).as(request).isEqualTo(one.remaining);
            assertThat(batch[i].retryAfterMicros).as(request + ": retry-after")
                    .isBetween(one.retryAfterMicros - slack, one.retryAfterMicros + slack);
            assertThat(batch[i].resetAfterMicros).as(request + ": reset-after")
                    .isBetween(one.resetAfterMicros - slack, one.resetAfterMicros + slack);
        }
        assertThat(totals(together)).as("the log's entries").isEqualTo(totals(alone)).isNotEmpty();
        long ttlTogether = redis.client().pttl(together);
        long ttlAlone = redis.client().pttl(alone);
        long slackMillis = (sinceMicros(started) + ROUNDING_MICROS) / 1000;
        assertThat(ttlTogether).as("the log's TTL").isBetween(ttlAlone - slackMillis, ttlAlone + slackMillis);
    }

    private static List<String> totals(String key) {
        return redis.client().zrangeWithScores(key, 0, -1).stream().map(Tuple::getElement)
                .collect(java.util.stream.Collectors.toList());
    }

    private static long sinceMicros(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startedNanos);
    }
}
