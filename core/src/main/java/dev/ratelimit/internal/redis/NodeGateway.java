package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisSettings;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The {@link RedisGateway} of {@code RedisStore.connect}: every call goes to the node its key
 * lives on, on a pooled {@link Connection} of that node, so that health is kept per node.
 *
 * <ul>
 *   <li><b>A circuit breaker per node</b> (keyed by {@code host:port}): a dead Cluster master stops
 *       only the decisions whose slots it serves, and a Sentinel failover to a new master starts
 *       with a closed breaker. A node that stops answering makes Cluster learn its slot map again,
 *       so a promoted replica is found.</li>
 *   <li><b>No stale connection is used twice</b>, after a restart or failover: see
 *       {@link NodeConnections}. Under traffic this costs nothing; a node quiet for a second gets a
 *       PING before its next command.</li>
 *   <li><b>Cluster redirects</b> are followed, and a call that never went out goes where the slot
 *       map, learnt again, says ({@link NodeCalls#route}); nothing that may have run is sent again.</li>
 * </ul>
 */
public final class NodeGateway extends TransactionGateway {
    private final RedisNodes nodes;
    private final NodeCalls calls;
    private final CommandObjects commands = new CommandObjects();
    /** Each node's {@link CallCoalescer}; unused when {@link #coalescing} is 0. */
    private final ConcurrentMap<String, CallCoalescer> coalescers = new ConcurrentHashMap<>();
    /** Round trips of script calls under way per node before calls travel together; 0: each goes alone. */
    private final int coalescing;
    /** The longest a call waits for its turn with others: the pool's wait for a connection. */
    private final Duration coalescingWait;
    private final NodeWarmUp warmUp;
    private final CallCoalescer.Sender sender = new CallCoalescer.Sender() {
        @Override
        public List<Long> one(ScriptCall call) {
            return evalAlone(call.script, call.keys, call.args);
        }

        @Override
        public List<ScriptCall.Outcome> many(List<ScriptCall> calls) {
            return evalAll(calls);
        }
    };

    private NodeGateway(RedisNodes nodes, Supplier<CircuitBreaker> newBreaker, String description, int coalescing,
            Duration coalescingWait, Duration warmUpBudget) {
        super(coalescingWait, description);
        this.nodes = nodes;
        // A coalescer of a node gone from the slot map holds no call once its callers are answered.
        this.calls = new NodeCalls(nodes, newBreaker, System::nanoTime, description,
                () -> coalescers.keySet().retainAll(nodes.inUse()));
        this.coalescing = coalescing;
        this.coalescingWait = coalescingWait;
        // Coalesced, a burst holds a connection per round trip under way plus one for the calls around
        // the queue (transactions, deletes, batches); alone, each decision holds one, up to the pool's.
        this.warmUp = new NodeWarmUp(calls, coalescing > 0 ? coalescing + 1 : 0, warmUpBudget.toNanos(), System::nanoTime);
    }

    /**
     * The Redis the settings name: the master the Sentinels name, followed through failovers
     * ({@link RedisNodes#sentinel}); Redis Cluster, from some of its nodes; or one Redis.
     *
     * @param sentinelClient the Sentinels' own timeouts (and nothing of the data nodes'), for Sentinel only
     * @param coalescing round trips of script calls under way per node before concurrent calls travel
     *     together ({@link CallCoalescer}); 0 sends each call on its own
     * @param coalescingWait the longest a call waits for its turn with others: the pool wait, at least the timeout
     * @param warmUpBudget after this long a {@link #warmUp(List)} starts no further step
     * @throws redis.clients.jedis.exceptions.JedisException if no Sentinel names the master, or no Cluster
     *     seed answers with the slot map
     */
    public static NodeGateway connect(RedisSettings settings, JedisClientConfig client, JedisClientConfig sentinelClient,
            GenericObjectPoolConfig<Connection> pool, Supplier<CircuitBreaker> breakers, int coalescing,
            Duration coalescingWait, Duration warmUpBudget) {
        RedisNodes nodes = settings.sentinelMaster() != null ? RedisNodes.sentinel(settings.sentinelMaster(),
                hostsAndPorts(settings.sentinelNodes()), client, sentinelClient, pool)
                : !settings.clusterNodes().isEmpty() ? RedisNodes.cluster(hostsAndPorts(settings.clusterNodes()), client, pool)
                : RedisNodes.standalone(new HostAndPort(settings.host(), settings.port()), client, pool);
        return new NodeGateway(nodes, breakers, settings.location(), coalescing, coalescingWait, warmUpBudget);
    }

    private static Set<HostAndPort> hostsAndPorts(List<String> nodes) {
        Set<HostAndPort> set = new LinkedHashSet<>();
        for (String node : nodes) {
            set.add(HostAndPort.from(node.trim()));
        }
        return set;
    }

    /** Runs the call at once, or with the calls that wait for its node at the same moment: see {@link CallCoalescer}. */
    @Override
    public List<Long> eval(LuaScript script, List<String> keys, List<String> args) {
        if (coalescing > 0) {
            HostAndPort node = nodes.nodeFor(keys.isEmpty() ? "" : keys.get(0));
            if (node != null) {
                return coalescerOf(node).eval(new ScriptCall(script, keys, args));
            }
        }
        return evalAlone(script, keys, args);
    }

    private CallCoalescer coalescerOf(HostAndPort node) {
        String address = node.toString();
        CallCoalescer known = coalescers.get(address);
        return known != null ? known
                : coalescers.computeIfAbsent(address, a -> new CallCoalescer(sender, coalescing, coalescingWait, calls.where(node)));
    }

    public long coalescedCalls() {
        long calls = 0;
        for (CallCoalescer each : coalescers.values()) {
            calls += each.coalescedCalls();
        }
        return calls;
    }

    /** One call in a round trip of its own. */
    private List<Long> evalAlone(LuaScript script, List<String> keys, List<String> args) {
        Object reply = calls.route(keys.isEmpty() ? "" : keys.get(0), script.running, (connection, asking) -> {
            try {
                ask(connection, asking);
                return connection.executeCommand(commands.evalsha(script.sha1(), keys, args));
            } catch (JedisNoScriptException notLoaded) {
                // Redis restarted, failed over or had SCRIPT FLUSH. Nothing ran, so running again is
                // safe; EVAL loads the script and runs it in the same round trip.
                ask(connection, asking);
                return connection.executeCommand(commands.eval(script.source(), keys, args));
            }
        });
        return Replies.longs(reply, calls.description, script);
    }

    /**
     * One pipeline per node holding calls, the nodes one after another ({@link PipelinedBatch}); on a
     * single node (not Cluster) one-rule decisions of one script are first joined into one script
     * call ({@link BatchedCalls}).
     */
    @Override
    public List<ScriptCall.Outcome> evalAll(List<ScriptCall> calls) {
        return nodes.cluster() ? pipelined(calls) : BatchedCalls.run(calls, this::pipelined);
    }

    List<ScriptCall.Outcome> pipelined(List<ScriptCall> scriptCalls) {
        return new PipelinedBatch(calls, commands, scriptCalls).run();
    }

    /** A transaction's commands on a connection of the key's node, never reused if the exchange breaks off. */
    @Override
    <T> T inSession(String key, String action, Function<WatchedSession, T> exchange) {
        return calls.route(key, action, (connection, asking) ->
                NodeConnections.whole(connection, () -> exchange.apply(WatchedSession.over(connection))));
    }

    @Override
    public void delete(List<String> keys) {
        calls.route(keys.get(0), "deleting keys", (connection, asking) -> {
            ask(connection, asking);
            return connection.executeCommand(commands.del(keys.toArray(new String[0])));
        });
    }

    private static void ask(Connection connection, boolean asking) {
        if (asking) {
            connection.executeCommand(Protocol.Command.ASKING);
        }
    }

    @Override
    public List<MemoryReading> readMemory() {
        return calls.readMemory();
    }

    @Override
    public WarmUp warmUp(List<LuaScript> scripts) {
        return warmUp.run(scripts);
    }

    @Override
    public String circuitState() {
        return calls.worstState();
    }

    @Override
    public boolean supportsTransactions() {
        return !nodes.cluster();
    }

    @Override
    public void close() {
        nodes.close();
    }

    @Override
    public String toString() {
        return calls.description;
    }
}
