package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisSentinelClient;

/**
 * JUnit 5 extension that starts a real Redis Sentinel setup for a test class, from the
 * {@code redis-server} on {@code PATH}, on free ports of 127.0.0.1: one master, one replica and three
 * sentinels (quorum 2) monitoring the master as {@value #MASTER_NAME}.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisSentinelExtension sentinel = new RedisSentinelExtension();
 * ...
 * settings.redisSentinelMaster(sentinel.masterName()).redisSentinelNodes(sentinel.sentinelNodes());
 * sentinel.failover();   // the replica becomes master
 * }</pre>
 *
 * <p>{@code beforeAll} returns when the replica is linked and every sentinel knows the master, the replica
 * and the two other sentinels. Without {@code redis-server} on {@code PATH} it throws (no fallback, nothing
 * skipped). Sentinels run with {@code down-after-milliseconds 1000} and {@code failover-timeout 5000}.
 *
 * <p>Usable without JUnit too: {@link #open()} / {@link #close()}. Processes are killed in {@link #close()}
 * and, should that never run, by a JVM shutdown hook; their temp dirs are deleted.
 */
public final class RedisSentinelExtension extends ManagedRedisResource {

    /** The name the sentinels monitor the master under. */
    public static final String MASTER_NAME = "mymaster";
    static final int SENTINEL_COUNT = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final Function<String, String> env;

    /** The two data nodes: initially master, replica. */
    private List<RedisProcessServer> dataNodes = List.of();
    private List<RedisProcessServer> sentinels = List.of();

    /** Creates an extension that starts its servers in {@code beforeAll} (or {@link #open()}). */
    public RedisSentinelExtension() {
        this(System::getenv);
    }

    /** Package-private seam for tests: a replaceable environment (for {@code PATH}). */
    RedisSentinelExtension(Function<String, String> env) {
        this.env = Objects.requireNonNull(env, "env");
    }

    // ------------------------------------------------------------------------------------------
    // Lifecycle (beforeAll / afterAll / close: see ManagedRedisResource)
    // ------------------------------------------------------------------------------------------

    /**
     * Starts master, replica and sentinels and waits until all sentinels see the whole setup (bounded,
     * ~30 s). Calls nest: each {@code open()} needs a matching {@link #close()}.
     *
     * @return this extension, for try-with-resources
     * @throws IllegalStateException when redis-server is not on PATH or the setup does not come up; the
     *                               message carries the tails of the logs
     */
    public RedisSentinelExtension open() {
        acquire();
        return this;
    }

    @Override
    void doOpen() {
        Path binary = RedisAdmin.requireOnPath(env, "redis-server", "RedisSentinelExtension");
        List<RedisProcessServer> started = new ArrayList<>();
        try {
            RedisProcessServer master = RedisProcessServer.start(binary, null, "sentinel-monitored master",
                    FreePorts::pick, RedisSentinelExtension::dataNodeArguments);
            started.add(master);
            int masterPort = master.port();
            RedisProcessServer replica = RedisProcessServer.start(binary, null, "sentinel-monitored replica",
                    FreePorts::pick, (port, dir, log) -> {
                        List<String> args = new ArrayList<>(dataNodeArguments(port, dir, log));
                        args.addAll(List.of("--replicaof", RedisAdmin.HOST, Integer.toString(masterPort)));
                        return args;
                    });
            started.add(replica);
            // Sentinels learn about replicas from the master's INFO: start them once the replica is linked.
            RedisAdmin.await("the replica to link to the master", READY_TIMEOUT,
                    () -> Replication.replicaProblem(replica.port(), masterPort), () -> RedisAdmin.logTails(started));
            List<RedisProcessServer> startedSentinels = new ArrayList<>();
            for (int i = 1; i <= SENTINEL_COUNT; i++) {
                RedisProcessServer sentinel = RedisProcessServer.start(binary, null, "sentinel " + i,
                        FreePorts::pick, (port, dir, log) -> sentinelArguments(port, dir, log, masterPort));
                started.add(sentinel);
                startedSentinels.add(sentinel);
            }
            RedisAdmin.await("every sentinel to see the master, its replica and the other sentinels", READY_TIMEOUT,
                    () -> SentinelChecks.sentinelsProblem(startedSentinels, masterPort, replica.port()),
                    () -> RedisAdmin.logTails(started));
            dataNodes = List.of(master, replica);
            sentinels = List.copyOf(startedSentinels);
        } catch (RuntimeException | Error e) {
            closeInOrder(started);
            throw e;
        }
    }

    @Override
    String describeOpened(Duration startup) {
        return "redis sentinel " + sentinelNodes() + " monitoring " + MASTER_NAME + " at "
                + RedisAdmin.address(masterPort()) + " (replica " + RedisAdmin.address(dataNodes.get(1).port())
                + ", up in " + startup.toMillis() + " ms, keyPrefix " + keyPrefix() + ")";
    }

    /** Kills sentinels, replica and master and deletes their temp dirs. */
    @Override
    void doClose() {
        closeInOrder(allServers());
        dataNodes = List.of();
        sentinels = List.of();
    }

    /** Sentinels first, so that they never see the data nodes die and start a failover meanwhile. */
    private static void closeInOrder(List<RedisProcessServer> servers) {
        List<RedisProcessServer> reversed = new ArrayList<>(servers);
        Collections.reverse(reversed);
        RedisAdmin.closeAll(reversed);
    }

    private static List<String> dataNodeArguments(int port, Path dir, Path logFile) {
        List<String> args = new ArrayList<>(RedisProcessServer.standardArguments(port, dir, logFile));
        // 7.0 waits 5 s for more replicas before a diskless full sync: no reason to in tests
        args.addAll(List.of("--repl-diskless-sync-delay", "0"));
        return args;
    }

    private static List<String> sentinelArguments(int port, Path dir, Path logFile, int masterPort)
            throws IOException {
        Path conf = dir.resolve("sentinel.conf");
        String text = String.join("\n",
                "port " + port,
                "bind " + RedisAdmin.HOST,
                "dir " + quote(dir.toString()),
                "logfile " + quote(logFile.toString()),
                "sentinel monitor " + MASTER_NAME + " " + RedisAdmin.HOST + " " + masterPort + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                "sentinel failover-timeout " + MASTER_NAME + " 5000",
                "sentinel parallel-syncs " + MASTER_NAME + " 1") + "\n";
        // Sentinel rewrites its config (state, known replicas and sentinels): it must be a writable file.
        Files.writeString(conf, text, StandardCharsets.UTF_8);
        return List.of(conf.toString(), "--sentinel");
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    // ------------------------------------------------------------------------------------------
    // Accessors
    // ------------------------------------------------------------------------------------------

    /**
     * The master name for the {@code redisSentinelMaster} setting.
     *
     * @return {@value #MASTER_NAME}
     */
    public String masterName() {
        return MASTER_NAME;
    }

    /**
     * The sentinels for the {@code redisSentinelNodes} setting.
     *
     * @return {@code "127.0.0.1:s1,127.0.0.1:s2,127.0.0.1:s3"}
     */
    public synchronized String sentinelNodes() {
        requireOpen();
        return sentinels.stream().map(s -> RedisAdmin.address(s.port())).collect(Collectors.joining(","));
    }

    /**
     * The sentinels as Jedis addresses, e.g. for {@code RedisSentinelClient.builder().sentinels(..)}.
     *
     * @return the three sentinels
     */
    public synchronized Set<HostAndPort> sentinelAddresses() {
        requireOpen();
        return sentinels.stream().map(s -> new HostAndPort(RedisAdmin.HOST, s.port()))
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /**
     * The port of the current master, per {@code SENTINEL GET-MASTER-ADDR-BY-NAME} of the first sentinel
     * that answers.
     *
     * @return the master's port on 127.0.0.1
     */
    public synchronized int masterPort() {
        requireOpen();
        return SentinelChecks.masterPort(sentinels);
    }

    /**
     * The port of the data node that is not the current master (the replica, once a failover has settled).
     *
     * @return the port on 127.0.0.1
     */
    public synchronized int replicaPort() {
        int master = masterPort();
        return dataNodes.stream().mapToInt(RedisProcessServer::port).filter(p -> p != master).findFirst()
                .orElseThrow();
    }

    /**
     * A new sentinel client for the master, whose pool runs no idle evictor thread. The caller closes it.
     *
     * @return a new client
     */
    public RedisSentinelClient newClient() {
        return RedisSentinelClient.builder().masterName(MASTER_NAME).sentinels(sentinelAddresses())
                .poolConfig(NoEvictorPool.config()).build();
    }

    @Override
    public String toString() {
        synchronized (this) {
            return "RedisSentinelExtension[" + (isOpen() ? MASTER_NAME + " via " + sentinelNodes() : "not open")
                    + ", keyPrefix=" + keyPrefix() + "]";
        }
    }

    // ------------------------------------------------------------------------------------------
    // Failure injection
    // ------------------------------------------------------------------------------------------

    /**
     * {@code SENTINEL FAILOVER mymaster}: the replica becomes master. Returns when every sentinel names it
     * as the master, it reports {@code role:master}, and the old master is its linked replica again (bounded,
     * ~30 s), so that the setup is ready for another failover.
     *
     * <p>Sentinel itself turns the old master into a replica only ~8 s after the switch; this method sends
     * that {@code REPLICAOF} right away, to the address the sentinels already record for it.
     *
     * @throws IllegalStateException when the sentinels refuse or do not complete the failover in time
     */
    public synchronized void failover() {
        requireOpen();
        long start = System.nanoTime();
        int oldMaster = masterPort();
        int newMaster = replicaPort();
        RedisAdmin.await("a sentinel to accept SENTINEL FAILOVER " + MASTER_NAME, READY_TIMEOUT,
                () -> SentinelChecks.askForFailover(sentinels), this::logTails);
        RedisAdmin.await("the sentinels to switch " + MASTER_NAME + " from " + RedisAdmin.address(oldMaster) + " to "
                        + RedisAdmin.address(newMaster), READY_TIMEOUT,
                () -> SentinelChecks.switchProblem(sentinels, newMaster), this::logTails);
        long switched = System.nanoTime();
        RedisAdmin.await("the old master " + RedisAdmin.address(oldMaster) + " to replicate from "
                        + RedisAdmin.address(newMaster) + " with every sentinel seeing it", READY_TIMEOUT, () -> {
                    Map<String, String> replication = RedisAdmin.info(oldMaster, "replication");
                    if ("master".equals(replication.get("role"))) {
                        RedisAdmin.call(oldMaster, j -> j.replicaof(RedisAdmin.HOST, newMaster));
                    }
                    String problem = Replication.replicaProblem(oldMaster, newMaster);
                    return problem != null ? problem : SentinelChecks.sentinelsProblem(sentinels, newMaster, oldMaster);
                }, this::logTails);
        long end = System.nanoTime();
        System.err.println(LOG_PREFIX + "sentinel failover " + RedisAdmin.address(oldMaster) + " -> "
                + RedisAdmin.address(newMaster) + ": switched after " + (switched - start) / 1_000_000 + " ms, settled after "
                + (end - start) / 1_000_000 + " ms");
    }

    private String logTails() {
        return RedisAdmin.logTails(allServers());
    }

    /** Data nodes, then sentinels. */
    private List<RedisProcessServer> allServers() {
        List<RedisProcessServer> all = new ArrayList<>(dataNodes);
        all.addAll(sentinels);
        return all;
    }
}
