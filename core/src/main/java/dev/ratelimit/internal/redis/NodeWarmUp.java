package dev.ratelimit.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.LongSupplier;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * Readies a {@link NodeGateway}'s nodes before the first decisions: on each node that serves keys
 * (the one standalone node, the Sentinel master, every Cluster master) it opens the pooled
 * connections a burst of decisions uses at once, checks each with PING, and loads the scripts with
 * SCRIPT LOAD. Left to the first requests, all of that happens while a burst waits behind them: a
 * connection's handshake, then NOSCRIPT and the script's source for each first call, on a machine
 * that has just started and runs cold code. Decisions queued behind those round trips wait at most
 * the pool wait, and past it the failure policy decides them, so the first burst after a deployment
 * was partly not limited at all.
 *
 * <p>Bounded, and never in the way: it stops at the first failure (Redis unreachable, or refusing
 * the handshake or the PING), and after its budget it starts no further step; each step waits at
 * most the timeout for each reply. Connections it holds go back to the pool whatever happens (a
 * broken one is dropped), and it starts no thread. A failure stands for later warm-ups of the same
 * gateway (the other policies of a webapp, started right after) until the node has answered again,
 * so a dead Redis delays a webapp's start once, not once per policy. Thread-safe (one at a time).
 */
final class NodeWarmUp {
    private final NodeCalls calls;
    /** Connections per node; 0 for as many as the pool holds, and never more. */
    private final int connections;
    /** After this long no further step starts. */
    private final long budgetNanos;
    private final LongSupplier clock;
    private final CommandObjects commands = new CommandObjects();
    /** The last warm-up's failure, standing until its node answers again; null when none. */
    private String failure;
    private HostAndPort failedNode;
    private long failedAt;

    NodeWarmUp(NodeCalls calls, int connections, long budgetNanos, LongSupplier clock) {
        this.calls = calls;
        this.connections = connections;
        this.budgetNanos = budgetNanos;
        this.clock = clock;
    }

    /** What one run has done so far, and when it must start no further step. */
    private final class Run {
        final long start = clock.getAsLong();
        int nodes;
        int wanted;
        int connections;
        int scripts;
        boolean begun;

        /** Whether the next step may start: the first always does, the others only within the budget. */
        boolean mayStep() {
            boolean may = !begun || clock.getAsLong() - start < budgetNanos;
            begun = true;
            return may;
        }

        WarmUp result(String failure) {
            return WarmUp.of(nodes, connections, wanted, scripts, failure, clock.getAsLong() - start);
        }
    }

    /** Readies every node that serves keys, for these scripts (each limiter script with its batch form). */
    synchronized WarmUp run(List<LuaScript> scripts) {
        Run run = new Run();
        if (failure != null && calls.healthOf(failedNode).lastAnswer() - failedAt <= 0) {
            return run.result(failure + " (an earlier warm-up found it so, and it has not answered since)");
        }
        List<LuaScript> all = new ArrayList<>();
        for (LuaScript script : scripts) {
            all.add(script);
            if (script.batchForm() != null) {
                all.add(script.batchForm());
            }
        }
        failure = null;
        for (HostAndPort node : calls.nodes.masters()) {
            String failed = ready(node, all, run);
            if (failed != null) {
                failure = failed;
                failedNode = node;
                failedAt = clock.getAsLong();
                return run.result(failed);
            }
        }
        return run.result(null);
    }

    /** One node: its connections, each checked, and the scripts on the first. Returns why it failed, or null. */
    private String ready(HostAndPort node, List<LuaScript> scripts, Run run) {
        NodeHealth health = calls.healthOf(node);
        if (health.breaker.state() == CircuitBreaker.State.OPEN) {
            return "Redis at " + calls.where(node) + " " + health.breaker.refusal(CircuitBreaker.Pass.COOLING_DOWN);
        }
        Pool<Connection> pool = calls.nodes.pool(node);
        int most = pool.getMaxTotal() < 0 ? Integer.MAX_VALUE : pool.getMaxTotal();
        int wanted = connections > 0 ? Math.min(connections, most) : most;
        run.nodes++;
        run.wanted += wanted;
        List<Connection> held = new ArrayList<>(wanted);
        try {
            for (int i = 0; i < wanted && run.mayStep(); i++) {
                Connection connection;
                try {
                    // Held until the end, so that the pool opens a new one each time.
                    connection = pool.getResource();
                } catch (JedisException e) {
                    if (e.getCause() instanceof NoSuchElementException && e.getCause().getCause() == null) {
                        // Requests hold every connection the pool may open (a policy started under traffic):
                        // they are ready.
                        return null;
                    }
                    throw e;
                }
                held.add(connection);
                if (NodeConnections.isStale(connection)) {
                    // An idle one from before a restart (a policy started long after the others): the
                    // pool's idle ones are as stale, and a fresh one takes its place.
                    held.remove(connection);
                    pool.clear();
                    connection.setBroken();
                    NodeConnections.release(connection);
                    connection = pool.getResource();
                    held.add(connection);
                    connection.ping();
                }
                health.answered(clock.getAsLong());
                run.connections++;
                if (i == 0) {
                    load(connection, scripts, run);
                }
            }
            return null;
        } catch (JedisDataException refused) {
            health.answered(clock.getAsLong());
            return "Redis at " + calls.where(node) + " refused the connection: " + message(refused);
        } catch (JedisException unreachable) {
            // As after any failure to reach a node: what idles in its pool is as dead. The breaker counts
            // the decisions' failures only, as documented; the first requests find out for themselves.
            pool.clear();
            return "Redis at " + calls.where(node) + " could not be reached: " + message(unreachable);
        } finally {
            for (Connection connection : held) {
                NodeConnections.release(connection);
            }
        }
    }

    /** The exception's message without the full stops Jedis and Redis end some with: the log line adds its own. */
    private static String message(JedisException e) {
        String message = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        int end = message.length();
        while (end > 0 && message.charAt(end - 1) == '.') {
            end--;
        }
        return message.substring(0, end);
    }

    /**
     * SCRIPT LOAD of each script (of one already there Redis only hashes the source again). An error
     * reply (a Redis user who may run EVALSHA and EVAL but not SCRIPT) ends the loading, not the
     * warm-up: decisions load their script themselves after NOSCRIPT, as they always could.
     */
    private void load(Connection connection, List<LuaScript> scripts, Run run) {
        for (LuaScript script : scripts) {
            if (!run.mayStep()) {
                return;
            }
            try {
                connection.executeCommand(commands.scriptLoad(script.source()));
            } catch (JedisDataException refused) {
                return;
            }
            run.scripts++;
        }
    }
}
