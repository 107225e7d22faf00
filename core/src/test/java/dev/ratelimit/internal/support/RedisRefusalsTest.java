package dev.ratelimit.internal.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Error replies as Redis 6.2, 7.x and 8.0 and Valkey 8 and 9 word them (the Valkey and 8.0 texts
 * captured from valkey-server 8.0.1 and 9.1.2 and redis-server 8.0.6): which are lasting refusals,
 * and what each asks of the operator, in words true of either server, as the text does not say which
 * answered.
 */
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
    void valkeysWordingIsRecognizedAsRedissIs() {
        String scripts = remedy("NOPERM User limiter has no permissions to run the 'evalsha' command");
        assertThat(remedy("NOPERM User noscript has no permissions to run the 'evalsha' command")).as("Valkey 9")
                .isEqualTo(scripts);
        assertThat(remedy("NOPERM User noscript has no permissions to run the 'script|load' command"))
                .as("Valkey 9, loading after NOSCRIPT").isEqualTo(scripts);
        assertThat(remedy("NOPERM No permissions to access a key")).as("Valkey 8 and 9, a key outside the user's")
                .contains("grant it the limiter's commands and keys");
        assertThat(remedy("ERR unknown command 'EVALSHA', with args beginning with: "
                + "'0123456789012345678901234567890123456789' '1' 'ratelimit:k' 'a' ")).as("Valkey 9, EVALSHA renamed away")
                .contains("scripting disabled or renamed", "transport=transaction");
        assertThat(remedy("ERR unknown command 'GETEX', with args beginning with: 'a' 'PX' '100' "))
                .as("Valkey 9, GETEX renamed away").contains("does not know a command");
        assertThat(remedy("WRONGPASS invalid username-password pair or user is disabled.")).as("Valkey 9")
                .contains("check the user and password");
        assertThat(remedy("NOSCRIPT No matching script.")).as("Valkey's NOSCRIPT, which a reload cures").isNull();
        assertThat(remedy("NOSCRIPT No matching script. Please use EVAL.")).as("Redis's").isNull();
    }

    @Test
    void remediesNameNoServerTheyCannotKnow() {
        String[] refusals = {
            "NOPERM User u has no permissions to run the 'evalsha' command",
            "NOPERM No permissions to access a key",
            "WRONGPASS invalid username-password pair or user is disabled.",
            "ERR unknown command 'EVALSHA', with args beginning with: ",
            "ERR unknown command 'GETEX', with args beginning with: ",
            "WRONGTYPE Operation against a key holding the wrong kind of value"};
        for (String refusal : refusals) {
            assertThat(remedy(refusal)).as(refusal).doesNotContain("Redis user", "this Redis", "Redis refused")
                    .doesNotStartWith("Redis");
        }
        assertThat(remedy("NOPERM User u has no permissions to run the 'eval' command"))
                .startsWith("the user the limiter connects as may not run scripts: grant it +@scripting");
        assertThat(remedy("ERR unknown command 'GETEX', with args beginning with: "))
                .contains("use Redis 6.2 or newer (or Valkey 7.2 or newer)");
        assertThat(remedy("NOAUTH Authentication required.")).startsWith("the server refused the credentials");
    }

    /**
     * A user that may run EVALSHA but not a command a script calls, or not a key it touches: Redis
     * says so without NOPERM. The 6.2 and 7.0 texts captured from redis-server 6.2.11 and 7.0.15
     * (RedisAclContract shows them through the library); 7.2 and newer and Valkey word it "ACL
     * failure in script" (their script.c).
     */
    @Test
    void aCommandOrKeyRefusedInsideAScriptIsARefusalThatPointsToTheUsersCommands() {
        String[] refusals = {
            "ERR The user executing the script can't run this command or subcommand script: "
                    + "dd1f99610b5d9bf490c9a755d840d59d5bbd9293, on @user_script:251.",
            "ERR Error running script (call to f_b4a061de5d2300320f9791b7181bd30c1edd19fd): @user_script:1: "
                    + "@user_script: 1: The user executing the script can't run this command or subcommand",
            "ERR Error running script (call to f_733db9816e9c67c4cc15572d4e80f4ebb13b5cdc): @user_script:1: "
                    + "@user_script: 1: The user executing the script can't access at least one of the keys mentioned "
                    + "in the command arguments",
            "ERR ACL failure in script: User limiter has no permissions to run the 'zadd' command script: "
                    + "dd1f99610b5d9bf490c9a755d840d59d5bbd9293, on @user_script:251.",
            "ERR ACL failure in script: No permissions to access a key script: "
                    + "dd1f99610b5d9bf490c9a755d840d59d5bbd9293, on @user_script:251."};
        for (String refusal : refusals) {
            assertThat(remedy("Redis at redis://****@h:6379 refused running sliding-log.lua: " + refusal)).as(refusal)
                    .startsWith("the user the limiter connects as may run scripts but not every command or key they use")
                    .contains("docs/security.md").doesNotContain("+@all", "+@scripting", "Redis user");
        }
        assertThat(remedy("ERR Error running script (call to f_x): @user_script:1: user_script:1: Script attempted to "
                + "access nonexistent global variable 'x'")).as("a script's own error").isNull();
    }

    @Test
    void aMissingCommandPointsToTheCommandsOfItsTransportNotToEveryCommand() {
        assertThat(remedy("NOPERM this user has no permissions to run the 'time' command"))
                .contains("grant it the limiter's commands and keys", "docs/security.md").doesNotContain("+@all");
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
