package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;

/**
 * The transaction transport's sliding log against a session that answers as Redis would when other
 * nodes keep changing the log: it tries again, and gives up once its patience is spent with a denial
 * of every request, so that a request neither hangs nor is admitted uncounted by the failure policy.
 * What it decides is proven on a real Redis by the algorithm contract.
 */
class SlidingLogTransactionsTest {
    /** An empty log at a fixed instant, whose every EXEC finds it changed. */
    private static final class ContendedSession extends EmptyLogSession {
        final List<String> commands = new ArrayList<>();
        int commits;

        @Override
        void seen(CommandArguments command) {
            commands.add(command.getCommand().toString());
        }

        @Override
        public List<Object> commit(List<CommandArguments> sent) {
            commits++;
            sent.forEach(this::seen);
            return null;
        }
    }

    @Test
    void aLogChangedUnderEveryTryIsDeniedOnceThePatienceIsSpent() {
        ContendedSession session = new ContendedSession();

        // Patience in real time: long enough that a loaded machine's first try (class loading, a
        // busy core) cannot spend it all, so that the test sees it try again. The pauses are short.
        SlidingLogTransactions.Outcome[] outcomes = SlidingLogTransactions.decide(attempt -> attempt.apply(session),
                "rl:p:{c}", new long[] {1, 2}, 10, 60_000_000, TimeUnit.MILLISECONDS.toNanos(400));

        assertThat(outcomes).hasSize(2).allSatisfy(outcome -> {
            assertThat(outcome.contended).isTrue();
            assertThat(outcome.allowed).as("a lost race is never an admission").isFalse();
            assertThat(outcome.remaining).isZero();
            assertThat(outcome.retryAfterMicros).as("the patience").isEqualTo(400_000);
        });
        assertThat(session.commits).as("tried again before giving up").isGreaterThan(1);
        assertThat(session.commands).as("an empty log starts afresh: DEL, ZADD, PEXPIRE")
                .containsSubsequence("WATCH", "TIME", "ZRANGE", "ZREVRANGEBYSCORE", "DEL", "ZADD", "PEXPIRE");
    }

    @Test
    void aPeekWatchesNothingAndWritesNothing() {
        ContendedSession session = new ContendedSession();

        SlidingLogTransactions.Outcome outcome = SlidingLogTransactions.peek(attempt -> attempt.apply(session),
                "rl:p:{c}", 1, 10, 60_000_000);

        assertThat(outcome.allowed).isTrue();
        assertThat(outcome.remaining).isEqualTo(10);
        assertThat(session.commits).isZero();
        assertThat(session.commands).containsExactly("TIME", "ZRANGE", "ZREVRANGEBYSCORE");
    }
}
