package dev.ratelimit.testing;

import static dev.ratelimit.testing.RedisSentinelExtension.MASTER_NAME;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the sentinels of a {@link RedisSentinelExtension} say: which node they name as master, whether they
 * all see the whole setup, and whether a failover they were asked for has gone through.
 */
final class SentinelChecks {

    private SentinelChecks() {
    }

    /** The master's port per the first of {@code sentinels} that answers {@code GET-MASTER-ADDR-BY-NAME}. */
    static int masterPort(List<RedisProcessServer> sentinels) {
        RuntimeException last = null;
        for (RedisProcessServer s : sentinels) {
            try {
                return masterPortPer(s.port());
            } catch (RuntimeException e) {
                last = e;
            }
        }
        throw new IllegalStateException("no sentinel answers GET-MASTER-ADDR-BY-NAME " + MASTER_NAME, last);
    }

    private static int masterPortPer(int sentinelPort) {
        List<String> addr = RedisAdmin.call(sentinelPort, j -> j.sentinelGetMasterAddrByName(MASTER_NAME));
        if (addr == null || addr.size() != 2) {
            throw new IllegalStateException("sentinel " + sentinelPort + " does not know " + MASTER_NAME + ": " + addr);
        }
        return Integer.parseInt(addr.get(1));
    }

    /** Null once a sentinel accepted the failover; retries while they answer NOGOODSLAVE or INPROG. */
    static String askForFailover(List<RedisProcessServer> sentinels) {
        List<String> answers = new ArrayList<>();
        for (RedisProcessServer s : sentinels) {
            try {
                String reply = RedisAdmin.call(s.port(), j -> j.sentinelFailover(MASTER_NAME));
                if ("OK".equalsIgnoreCase(reply)) {
                    return null;
                }
                answers.add(s.port() + ": " + reply);
            } catch (RuntimeException e) {
                answers.add(s.port() + ": " + Causes.describe(e));
            }
        }
        return "sentinels answered " + answers;
    }

    /** Null when every sentinel names {@code newMaster} and it reports {@code role:master}. */
    static String switchProblem(List<RedisProcessServer> sentinels, int newMaster) {
        for (RedisProcessServer s : sentinels) {
            int named = masterPortPer(s.port());
            if (named != newMaster) {
                return "sentinel " + RedisAdmin.address(s.port()) + " still names " + RedisAdmin.address(named);
            }
        }
        Map<String, String> replication = RedisAdmin.info(newMaster, "replication");
        if (!"master".equals(replication.get("role"))) {
            return RedisAdmin.address(newMaster) + " reports role:" + replication.get("role");
        }
        return null;
    }

    /**
     * Null when every sentinel names {@code master}, sees it up with one replica ({@code replica}, not down
     * or disconnected) and the other sentinels.
     */
    static String sentinelsProblem(List<RedisProcessServer> sentinels, int master, int replica) {
        for (RedisProcessServer s : sentinels) {
            int port = s.port();
            String who = "sentinel " + RedisAdmin.address(port);
            Map<String, String> m = RedisAdmin.call(port, j -> j.sentinelMaster(MASTER_NAME));
            if (!String.valueOf(master).equals(m.get("port")) || !"master".equals(m.get("flags"))) {
                return who + " sees master " + m.get("ip") + ":" + m.get("port") + " flags " + m.get("flags");
            }
            if (!"1".equals(m.get("num-slaves"))
                    || !String.valueOf(RedisSentinelExtension.SENTINEL_COUNT - 1).equals(m.get("num-other-sentinels"))) {
                return who + " sees num-slaves=" + m.get("num-slaves") + " num-other-sentinels="
                        + m.get("num-other-sentinels");
            }
            List<Map<String, String>> replicas = RedisAdmin.call(port, j -> j.sentinelReplicas(MASTER_NAME));
            Map<String, String> r = replicas.get(0);
            if (!String.valueOf(replica).equals(r.get("port")) || !"slave".equals(r.get("flags"))) {
                return who + " sees replica " + r.get("ip") + ":" + r.get("port") + " flags " + r.get("flags");
            }
        }
        return null;
    }
}
