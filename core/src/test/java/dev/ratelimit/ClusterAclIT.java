package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.http.status.StatusReport;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.testing.RedisClusterExtension;
import dev.ratelimit.testing.ServerProduct;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * docs/security.md's user for {@code transport=lua} with its Cluster addition, on every node of a
 * 3-master Cluster (ACL users are each node's own): decisions of every algorithm across the
 * masters, a batch, overrides, a client's reset and peek, the eviction check of each master, the
 * warm-up, and a decision in a slot being migrated (ASK, then ASKING on the importing master).
 * Redis refuses nothing on any node, and each command the addition grants is run.
 */
class ClusterAclIT {
    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static Jedis admin(String node) {
        return new Jedis(HostAndPort.from(node),
                DefaultJedisClientConfig.builder().clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build());
    }

    @Test
    void theLuaUserWithThePagesClusterAdditionDecidesOnEveryMaster() throws Exception {
        String product;
        try (Jedis admin = admin(cluster.nodes().get(0))) {
            product = ServerProduct.of(admin.info("server"));
        }
        List<String> addition = RedisAclContract.PAGE.addition("Cluster");
        List<String> rules = RedisAclContract.rulesFor("lua", product, addition);
        String user = "acl" + System.nanoTime();
        String password = "pw" + System.nanoTime();
        for (String node : cluster.nodes()) {
            try (Jedis admin = admin(node)) {
                admin.sendCommand(Protocol.Command.ACL, RedisAclContract.setUser(user, password, cluster.keyPrefix(), rules));
                admin.configResetStat();
                admin.sendCommand(Protocol.Command.ACL, "LOG", "RESET");
            }
        }
        List<PolicyRuntime> runtimes = new ArrayList<>();
        RedisStoreRegistry registry = new RedisStoreRegistry();
        String log;
        try (CapturedErr err = new CapturedErr()) {
            for (Algorithm algorithm : Algorithm.values()) {
                if (algorithm == Algorithm.CONCURRENCY) {
                    continue;
                }
                PolicyRuntime runtime = start(registry, user, password, "cluster-" + algorithm.configName(),
                        "algorithm", algorithm.configName(), "limit", "3", "window", "1m");
                runtimes.add(runtime);
                for (String client : List.of("203.0.113.1", "203.0.113.2", "203.0.113.3")) {
                    assertThat(RedisAclContract.admittedOf(runtime, client, 5)).as(algorithm + " " + client).isEqualTo(3);
                }
                assertThat(runtime.limiter().tryAcquireAll(List.of("b1", "b2", "b3")))
                        .allMatch(decision -> decision.allowed() && !decision.degraded());
            }
            PolicyRuntime ops = runtimes.get(0);
            ops.limiter().overrides().setLimit(2, "ops");
            ops.limiter().overrides().clear("ops");
            assertThat(ops.oneClient().reset("203.0.113.1", "ops")).isNotEmpty();
            assertThat(StatusReport.of("/acl", runtimes, "203.0.113.1").json()).doesNotContain("\"degraded\":true");
            assertThat(ops.limiter().stats().redisMaxmemoryPolicy()).isEqualTo("noeviction");

            // A client whose slot is being migrated: its source master answers ASK (the client's keys
            // are not there), and the decision is made on the importing master after ASKING.
            askingOnAnImportingMaster(runtimes.get(1));
            log = err.text();
        } finally {
            runtimes.forEach(PolicyRuntime::close);
        }

        assertThat(log).as(log).doesNotContain("WARN", "ERROR");
        for (PolicyRuntime runtime : runtimes) {
            RateLimiterStats stats = runtime.limiter().stats();
            assertThat(stats.redisRefusals() + stats.redisErrors() + stats.degraded()).as(runtime + ": " + stats).isZero();
        }
        Set<String> run = new TreeSet<>();
        for (String node : cluster.nodes()) {
            try (Jedis admin = admin(node)) {
                RedisAclContract.assertNothingRefused(admin, user);
                run.addAll(RedisAclContract.commandsRun(admin));
                admin.sendCommand(Protocol.Command.ACL, "DELUSER", user);
            }
        }
        assertThat(RedisAclContract.unused(RedisAclContract.granted(addition), run))
                .as("the Cluster addition granted but never run; run: " + run).isEmpty();
    }

    private PolicyRuntime start(RedisStoreRegistry registry, String user, String password, String policy,
            String... settings) {
        Map<String, String> values = new HashMap<>();
        values.put("redisUri", "redis://" + user + ":" + password + "@127.0.0.1");
        values.put("redisClusterNodes", cluster.seedNodes());
        values.put("redisTimeout", "2s");
        values.put("keyPrefix", cluster.keyPrefix());
        values.put("policyName", policy);
        values.put("jmx", "false");
        for (int i = 0; i < settings.length; i += 2) {
            values.put(settings[i], settings[i + 1]);
        }
        return PolicyRuntime.start(HttpPolicy.parser("init-param '%s'").defaultPolicyName(policy, "the filter-name")
                .parse(values), registry, "/acl");
    }

    private void askingOnAnImportingMaster(PolicyRuntime runtime) {
        String client = "203.0.113.200";
        String key = runtime.limiter().redisKeys(client).get(0);
        int slot = JedisClusterCRC16.getSlot(key);
        String source = cluster.masterOf(key);
        String target = cluster.masters().stream().filter(master -> !master.equals(source)).findFirst().orElseThrow();
        try (Jedis from = admin(source); Jedis to = admin(target)) {
            String sourceId = (String) redis.clients.jedis.BuilderFactory.STRING.build(
                    from.sendCommand(Protocol.Command.CLUSTER, "MYID"));
            String targetId = (String) redis.clients.jedis.BuilderFactory.STRING.build(
                    to.sendCommand(Protocol.Command.CLUSTER, "MYID"));
            to.sendCommand(Protocol.Command.CLUSTER, "SETSLOT", Integer.toString(slot), "IMPORTING", sourceId);
            from.sendCommand(Protocol.Command.CLUSTER, "SETSLOT", Integer.toString(slot), "MIGRATING", targetId);
            try {
                assertThat(RedisAclContract.admittedOf(runtime, client, 1)).isEqualTo(1);
                assertThat(RedisAclContract.commandsRun(to)).as("the library's ASKING").contains("asking");
                to.sendCommand(Protocol.Command.ASKING);
                assertThat(to.exists(key)).as("decided on the importing master").isTrue();
            } finally {
                to.sendCommand(Protocol.Command.ASKING);
                to.del(key);
                to.sendCommand(Protocol.Command.CLUSTER, "SETSLOT", Integer.toString(slot), "STABLE");
                from.sendCommand(Protocol.Command.CLUSTER, "SETSLOT", Integer.toString(slot), "STABLE");
            }
        }
    }
}
