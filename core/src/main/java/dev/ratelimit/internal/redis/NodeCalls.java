package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.support.Durations;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * One call on one node, past the node's breaker: the health kept per node ({@link NodeHealth}:
 * breaker, quiet check, stale connections) and what a failure tells the slot map; and the way to the
 * key's node, following Cluster's redirects ({@link #route}). The gateway's single calls and its
 * pipelines both go through here, so a node's health hears of every call. Thread-safe.
 */
final class NodeCalls {
    /** Redirects followed in one call at most, and the pause before each TRYAGAIN. */
    static final long[] REDIRECT_PAUSES_MILLIS = {0, 1, 2, 5, 10, 20};
    /** The last try of a call: its redirect or TRYAGAIN is a refusal. */
    static final int LAST_TRY = REDIRECT_PAUSES_MILLIS.length - 1;

    final RedisNodes nodes;
    private final Supplier<CircuitBreaker> newBreaker;
    private final LongSupplier clock;
    final String description;
    private final ConcurrentMap<String, NodeHealth> healthByNode = new ConcurrentHashMap<>();
    /** Forgets what the gateway keeps per node besides health, once nodes left the slot map. */
    private final Runnable forgetOtherNodeState;

    NodeCalls(RedisNodes nodes, Supplier<CircuitBreaker> newBreaker, LongSupplier clock, String description,
            Runnable forgetOtherNodeState) {
        this.nodes = nodes;
        this.newBreaker = newBreaker;
        this.clock = clock;
        this.description = description;
        this.forgetOtherNodeState = forgetOtherNodeState;
    }

    /**
     * Runs a command on the key's node, following Cluster's redirects a few times: {@code MOVED} renews
     * the slot map and goes to the node named; {@code ASK} goes to the importing node with
     * {@code ASKING} right before the command on the same connection; {@code TRYAGAIN} waits a moment.
     * Each proves nothing ran. So does a call that never went out (no connection to be had, or the
     * node's breaker open): it goes to another node when the slot map, learnt again, names one.
     * Nothing else is retried: after a timeout or a lost connection the script may have run.
     */
    <T> T route(String key, String action, NodeConnections.Command<T> command) {
        HostAndPort node = nodes.nodeFor(key);
        boolean asking = false;
        for (int redirect = 0; ; redirect++) {
            if (node == null) {
                throw noNodeFor(key);
            }
            try {
                return onNode(node, asking, action, command);
            } catch (NotSentFailure failed) {
                HostAndPort elsewhere = redirect < LAST_TRY ? renewedNode(key, node) : null;
                if (elsewhere == null) {
                    throw failed;
                }
                node = elsewhere;
                asking = false;
            } catch (JedisDataException refused) {
                if (redirect == LAST_TRY || !sendAgain(refused)) {
                    throw refusal(node, action, refused);
                }
                if (refused instanceof JedisRedirectionException) {
                    node = ((JedisRedirectionException) refused).getTargetNode();
                    asking = refused instanceof JedisAskDataException;
                } else {
                    Durations.pause(REDIRECT_PAUSES_MILLIS[redirect + 1]);
                }
            }
        }
    }

    /**
     * Whether an error reply asks for the call again, which proves nothing ran: at the node it names
     * ({@code MOVED}, {@code ASK}), or at the same after a pause ({@code TRYAGAIN}).
     */
    static boolean sendAgain(JedisDataException refused) {
        return refused instanceof JedisRedirectionException
                || refused.getMessage() != null && refused.getMessage().startsWith("TRYAGAIN");
    }

    /**
     * After a call that never went out (no connection, or the node's breaker open): the node the slot
     * map, learnt again after a failure, names instead (a promoted replica); null when none other.
     */
    HostAndPort renewedNode(String key, HostAndPort node) {
        if (!nodes.cluster()) {
            return null;
        }
        nodes.awaitSlotMap();
        HostAndPort now = nodes.nodeFor(key);
        return now == null || now.equals(node) ? null : now;
    }

    RedisFailureException noNodeFor(String key) {
        return new RedisFailureException("Redis at " + description + " has no node serving " + key, null);
    }

    /** An error reply: Redis answered. */
    RedisFailureException refusal(HostAndPort node, String action, JedisDataException refused) {
        return new RedisFailureException("Redis at " + where(node) + " refused " + action + ": " + refused.getMessage(),
                refused, true);
    }

    /**
     * One call on one node, through its breaker. Returns the result, throws the error reply as it
     * came (the caller follows redirects), or a {@link RedisFailureException}.
     */
    <T> T onNode(HostAndPort node, boolean asking, String action, NodeConnections.Command<T> command) {
        NodeHealth health = healthOf(node);
        CircuitBreaker breaker = health.breaker;
        // A node quiet for a while may have restarted meanwhile: the first caller checks it, the
        // others wait for what it finds (as they wait for a probe after the breaker was open).
        CircuitBreaker.Pass pass = breaker.pass(health.quiet(clock.getAsLong()));
        if (!pass.allowed()) {
            throw new NotSentFailure("Redis at " + where(node) + " " + breaker.refusal(pass), null);
        }
        Boolean answered = null;
        try {
            T result = NodeConnections.run(nodes, node, health, pass == CircuitBreaker.Pass.PROBE, asking, command);
            answered = true;
            return result;
        } catch (JedisDataException refused) {
            answered = true;
            throw refused;
        } catch (NumberFormatException | ClassCastException e) {
            answered = true;
            throw new RedisFailureException("Redis at " + where(node) + " answered " + action
                    + " with something unexpected: " + e.getMessage(), e, true);
        } catch (JedisException unreachable) {
            answered = false;
            // Bounded by the breaker: a few times, then once per failed probe. Before the breaker hears
            // of it (below): callers waiting for this probe's verdict then find the renewed slot map
            // (a promoted replica) when they look again, instead of the old one.
            nodes.unreachable(node);
            if (nodes.cluster()) {
                forgetNodesNotInUse();
            }
            String message = "Redis at " + where(node) + " failed " + action + ": "
                    + (unreachable.getMessage() != null ? unreachable.getMessage() : unreachable.getClass().getSimpleName());
            throw unreachable instanceof NodeConnections.NotSent ? new NotSentFailure(message, unreachable.getCause())
                    : new RedisFailureException(message, unreachable);
        } finally {
            if (answered == null) {
                // Neither an answer nor a failure to reach it (a bug, an Error): a probe passes its turn on.
                breaker.onInconclusive();
            } else if (answered) {
                health.answered(clock.getAsLong());
                breaker.onSuccess();
            } else {
                breaker.onFailure();
            }
        }
    }

    /**
     * What every master says about evicting keys, one after another: a read no decision needs, so it
     * stays off the nodes' records. It is sent only while a node's breaker is closed (the one probe
     * after a failure belongs to a decision, which tells whether Redis is back), and tells the breaker
     * nothing either way: a missed reading is tried again later, and must neither open the breaker
     * nor count as the answer that closes it.
     */
    List<MemoryReading> readMemory() {
        List<MemoryReading> readings = new ArrayList<>();
        for (HostAndPort master : nodes.masters()) {
            readings.add(readMemory(master));
        }
        return readings;
    }

    private MemoryReading readMemory(HostAndPort node) {
        String address = node.toString();
        NodeHealth health = healthOf(node);
        CircuitBreaker.State state = health.breaker.state();
        if (state != CircuitBreaker.State.CLOSED) {
            return MemoryReading.unreached(address, where(node), "not asked while its circuit breaker is " + state);
        }
        try {
            return NodeConnections.run(nodes, node, health, health.quiet(clock.getAsLong()), false,
                    (connection, asking) -> MemoryReading.read(address, where(node), connection, false));
        } catch (JedisDataException refused) {
            return MemoryReading.refused(address, where(node), refused.getMessage());
        } catch (JedisException unreachable) {
            return MemoryReading.unreached(address, where(node), String.valueOf(unreachable.getMessage()));
        }
    }

    /** Where a call went, for messages: the settings' location, and the node when there are several. */
    String where(HostAndPort node) {
        return nodes.single() ? description : description + " (node " + node + ")";
    }

    NodeHealth healthOf(HostAndPort node) {
        String address = node.toString();
        NodeHealth known = healthByNode.get(address);
        return known != null ? known : healthByNode.computeIfAbsent(address, a -> new NodeHealth(newBreaker.get(), clock.getAsLong()));
    }

    void forgetNodesNotInUse() {
        healthByNode.keySet().retainAll(nodes.inUse());
        forgetOtherNodeState.run();
    }

    /** The worst breaker state among the nodes in use: OPEN, then HALF_OPEN, then CLOSED. */
    String worstState() {
        forgetNodesNotInUse();
        CircuitBreaker.State worst = CircuitBreaker.State.CLOSED;
        for (NodeHealth node : healthByNode.values()) {
            CircuitBreaker.State state = node.breaker.state();
            if (state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.HALF_OPEN && worst == CircuitBreaker.State.CLOSED) {
                worst = state;
            }
        }
        return worst.name();
    }

    /** A failure before any command went out: the call may be sent to another node. */
    static final class NotSentFailure extends RedisFailureException {
        private static final long serialVersionUID = 1L;

        NotSentFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
