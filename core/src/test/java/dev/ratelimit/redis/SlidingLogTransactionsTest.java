package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The transaction transport's sliding log against a session that answers as Redis would when other
 * clients keep changing the log: it tries again, and gives up once its patience is spent, so the
 * failure policy answers instead of a request that hangs. What it decides is proven on a real
 * Redis by the algorithm contract.
 */
class SlidingLogTransactionsTest {
    /** An empty log at a fixed instant, whose every EXEC finds it changed. */
    private static final class ContendedSession implements WatchedSession {
        final List<String> commands = new ArrayList<>();
        int commits;

        @Override
        public List<Object> read(List<CommandArguments> sent) {
            List<Object> replies = new ArrayList<>();
            for (CommandArguments command : sent) {
                commands.add(command.getCommand().toString());
                if (command.getCommand() == Protocol.Command.TIME) {
                    replies.add(Arrays.<Object>asList(bytes("1700000000"), bytes("250000")));
                } else if (command.getCommand() == Protocol.Command.WATCH
                        || command.getCommand() == Protocol.Command.UNWATCH) {
                    replies.add("OK");
                } else {
                    replies.add(Collections.emptyList());
                }
            }
            return replies;
        }

        @Override
        public List<Object> commit(List<CommandArguments> sent) {
            commits++;
            for (CommandArguments command : sent) {
                commands.add(command.getCommand().toString());
            }
            return null;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aLogChangedUnderEveryTryGivesUpOnceItsPatienceIsSpent() {
        ContendedSession session = new ContendedSession();

        assertThatThrownBy(() -> SlidingLogTransactions.decide(session, "rl:p:{c}", 1, 10, 60_000_000, true,
                TimeUnit.MILLISECONDS.toNanos(30)))
                .isInstanceOf(JedisDataException.class)
                .hasMessageStartingWith("the sliding log rl:p:{c} changed under each of ")
                .hasMessageEndingWith(" transactions within 30 ms");
        assertThat(session.commits).as("tried again before giving up").isGreaterThan(1);
        assertThat(session.commands).as("an empty log starts afresh: DEL, ZADD, PEXPIRE")
                .containsSubsequence("WATCH", "TIME", "ZRANGE", "ZREVRANGEBYSCORE", "DEL", "ZADD", "PEXPIRE");
    }

    @Test
    void aPeekWatchesNothingAndWritesNothing() {
        ContendedSession session = new ContendedSession();

        SlidingLogTransactions.Outcome outcome = SlidingLogTransactions.decide(session, "rl:p:{c}", 1, 10, 60_000_000,
                false, TimeUnit.MILLISECONDS.toNanos(30));

        assertThat(outcome.allowed).isTrue();
        assertThat(outcome.remaining).isEqualTo(10);
        assertThat(session.commits).isZero();
        assertThat(session.commands).containsExactly("TIME", "ZRANGE", "ZREVRANGEBYSCORE");
    }
}
