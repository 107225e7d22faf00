package dev.ratelimit.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RedisStore;
import dev.ratelimit.RedisStoreExtension;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.scripts.LuaEvaluator;
import dev.ratelimit.internal.support.RedisKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** {@link NodeGateway#evalAll}'s pipeline on a standalone Redis, where a single limiter cannot reach. */
class PipelinedBatchIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    /**
     * One pipeline holding two scripts, only one of them loaded: exactly the calls answered NOSCRIPT
     * go out again with EVAL, and every call gets its own reply, in order.
     */
    @Test
    void onlyTheCallsAnsweredNoScriptAreSentAgainWithEval() {
        try (RedisStore store = RedisStoreExtension.connect(redis.uri()); Jedis admin = new Jedis(redis.host(), redis.port())) {
            NodeGateway gateway = (NodeGateway) StoreAccess.gateway(store);
            LuaEvaluator loaded = new LuaEvaluator(gateway, List.of(Rule.of(Algorithm.GCRA, 5, Duration.ofHours(1))));
            LuaEvaluator flushed = new LuaEvaluator(gateway,
                    List.of(Rule.of(Algorithm.TOKEN_BUCKET, 7, Duration.ofHours(1))));
            admin.scriptFlush();
            admin.scriptLoad(LuaEvaluator.script(Algorithm.GCRA).source());
            List<ScriptCall> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                LuaEvaluator evaluator = i % 2 == 0 ? loaded : flushed;
                calls.add(evaluator.call(List.of(RedisKeys.key(redis.keyPrefix(), "pipeline", "c" + i)),
                        new long[] {1 + i % 3}, true));
            }
            long evalsBefore = redis.calls("eval");
            long evalshasBefore = redis.calls("evalsha");

            // The pipeline itself, without joining calls of one script into one (BatchedCalls).
            List<ScriptCall.Outcome> outcomes = gateway.pipelined(calls);

            assertThat(redis.calls("eval") - evalsBefore).as("EVAL calls").isEqualTo(10);
            assertThat(redis.calls("evalsha") - evalshasBefore).as("EVALSHA calls").isEqualTo(20);
            for (int i = 0; i < 20; i++) {
                long capacity = i % 2 == 0 ? 5 : 7;
                assertThat(outcomes.get(i).reply()).as("reply %d", i).startsWith(1L, 1L, capacity - 1 - i % 3);
            }
        }
    }
}
