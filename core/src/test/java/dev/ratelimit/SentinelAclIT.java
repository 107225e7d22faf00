package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.testing.RedisSentinelExtension;
import dev.ratelimit.testing.ServerProduct;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * docs/security.md's user for {@code transport=lua} through Sentinel: the user is made on the master
 * and on its replica (a replica does not get the master's users), the library decides on the master
 * under it and Redis refuses nothing; on the Sentinels the library has logged in as nobody (their
 * {@code default} user) and stays subscribed to {@code +switch-master}.
 */
class SentinelAclIT {
    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    private static Jedis admin(int port) {
        return new Jedis(new HostAndPort("127.0.0.1", port),
                DefaultJedisClientConfig.builder().clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build());
    }

    @Test
    void theLuaUserDecidesOnTheMasterAndTheSentinelsAreAskedAsTheirDefaultUser() throws Exception {
        String user = "acl" + System.nanoTime();
        String password = "pw" + System.nanoTime();
        try (Jedis master = admin(sentinel.masterPort()); Jedis replica = admin(sentinel.replicaPort())) {
            List<String> rules = RedisAclContract.rulesFor("lua", ServerProduct.of(master.info("server")), List.of());
            master.sendCommand(Protocol.Command.ACL, RedisAclContract.setUser(user, password, sentinel.keyPrefix(), rules));
            assertThat(replica.sendCommand(Protocol.Command.ACL, "GETUSER", user)).as("not replicated").isNull();
            replica.sendCommand(Protocol.Command.ACL, RedisAclContract.setUser(user, password, sentinel.keyPrefix(), rules));
            master.sendCommand(Protocol.Command.ACL, "LOG", "RESET");

            Map<String, String> settings = new HashMap<>(Map.of("redisUri", "redis://" + user + ":" + password + "@127.0.0.1",
                    "redisSentinelMaster", sentinel.masterName(), "redisSentinelNodes", sentinel.sentinelNodes(),
                    "redisTimeout", "2s", "keyPrefix", sentinel.keyPrefix(), "jmx", "false", "limit", "3", "window", "1m"));
            String log;
            try (CapturedErr err = new CapturedErr();
                    PolicyRuntime runtime = PolicyRuntime.start(HttpPolicy.parser("init-param '%s'")
                            .defaultPolicyName("sentinel", "the filter-name").parse(settings), new RedisStoreRegistry(),
                            "/acl")) {
                assertThat(RedisAclContract.admittedOf(runtime, "203.0.113.1", 5)).isEqualTo(3);
                runtime.limiter().overrides().setLimit(2, "ops");
                runtime.limiter().overrides().clear("ops");
                assertThat(runtime.limiter().stats().redisMaxmemoryPolicy()).isEqualTo("noeviction");
                RateLimiterStats stats = runtime.limiter().stats();
                assertThat(stats.redisRefusals() + stats.redisErrors() + stats.degraded()).as(stats.toString()).isZero();

                for (HostAndPort each : sentinel.sentinelAddresses()) {
                    try (Jedis admin = admin(each.getPort())) {
                        List<String> listeners = Arrays.stream(admin.clientList().split("\n"))
                                .filter(line -> line.contains(" cmd=subscribe ") && line.contains(" name= "))
                                .collect(Collectors.toList());
                        assertThat(listeners).as("the library's listener on Sentinel " + each).hasSize(1)
                                .allMatch(line -> line.contains(" user=default "));
                    }
                }
                log = err.text();
            }
            assertThat(log).as(log).doesNotContain("WARN", "ERROR");
            RedisAclContract.assertNothingRefused(master, user);
            master.sendCommand(Protocol.Command.ACL, "DELUSER", user);
            replica.sendCommand(Protocol.Command.ACL, "DELUSER", user);
        }
    }
}
