package dev.ratelimit.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Error replies as Redis 6.2 and 7.x word them: which are lasting refusals, and what each asks of the operator. */
class RedisRefusalsTest {
    /** A failure whose message is the first, caused by one with the second, and so on. */
    private static String remedy(String... messages) {
        Throwable failure = null;
        for (int i = messages.length - 1; i >= 0; i--) {
            failure = new RuntimeException(messages[i], failure);
        }
        return RedisRefusals.remedy(failure);
    }

    @Test
    void scriptsForbiddenToTheUserAskForScriptingOrTheTransactionTransport() {
        assertThat(remedy("NOPERM User limiter has no permissions to run the 'evalsha' command"))
                .contains("+@scripting", "transport=transaction");
        assertThat(remedy("Redis at redis://****@h:6379 refused running limiter-driver: "
                + "NOPERM this user has no permissions to run the 'eval' command or its subcommand"))
                .as("6.2's wording, inside our message").contains("+@scripting");
        assertThat(remedy("ERR unknown command 'EVALSHA', with args beginning with: 'abc' '1'"))
                .as("scripting renamed away").contains("transport=transaction");
    }

    @Test
    void otherLastingRefusalsSayWhatToChange() {
        assertThat(remedy("NOPERM No permissions to access a key")).contains("grant it the limiter's commands and keys");
        assertThat(remedy("WRONGPASS invalid username-password pair or user is disabled."))
                .contains("check the user and password");
        assertThat(remedy("NOAUTH Authentication required.")).contains("check the user and password");
        assertThat(remedy("ERR unknown command 'GETEX', with args beginning with: ")).contains("Redis 6.2 or newer");
        assertThat(remedy("WRONGTYPE Operation against a key holding the wrong kind of value"))
                .contains("keyPrefix of its own");
    }

    @Test
    void outagesAndPassingErrorsAreNoRefusal() {
        assertThat(remedy("READONLY You can't write against a read only replica.")).isNull();
        assertThat(remedy("Read timed out", null, "java.net.SocketTimeoutException: Read timed out")).isNull();
        assertThat(remedy("LOADING Redis is loading the dataset in memory")).isNull();
        assertThat(remedy("CLUSTERDOWN The cluster is down")).isNull();
        assertThat(RedisRefusals.remedy((Throwable) null)).isNull();
    }

    @Test
    void theFirstRefusalInTheCauseChainCounts() {
        assertThat(remedy("Redis at x failed running limiter-driver", "Failed to connect",
                "WRONGPASS invalid username-password pair")).contains("credentials");
    }
}
