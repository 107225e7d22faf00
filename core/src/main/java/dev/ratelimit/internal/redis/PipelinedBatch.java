package dev.ratelimit.internal.redis;

import dev.ratelimit.RedisFailureException;
import dev.ratelimit.internal.support.Durations;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

/**
 * {@link NodeGateway#evalAll}: the calls grouped by node, and each node's group written on one of its
 * connections as a pipeline (every EVALSHA sent, then every reply read): one round trip per node.
 * The nodes are asked one after another, each past its own breaker with its own stale-connection
 * check ({@link NodeCalls#onNode}), so a node down fails only its own calls.
 *
 * <p>A reply is judged as a single call's ({@link NodeCalls#route}): MOVED and ASK send the call to
 * the node named in the next round, TRYAGAIN to the same one after a pause; a node's calls that never
 * went out go to the node a renewed slot map names. NOSCRIPT is sent again at once with EVAL on the
 * same connection (nothing ran). Nothing that may have run is sent again: a timeout or a lost
 * connection fails every call of that node's pipeline.
 */
final class PipelinedBatch {
    private final NodeCalls nodes;
    private final CommandObjects commands;
    private final List<ScriptCall> calls;
    private final ScriptCall.Outcome[] outcomes;
    /** Which calls go with ASKING before them: sent again after an ASK, to the node it named. */
    private final boolean[] asking;

    PipelinedBatch(NodeCalls nodes, CommandObjects commands, List<ScriptCall> calls) {
        this.nodes = nodes;
        this.commands = commands;
        this.calls = calls;
        this.outcomes = new ScriptCall.Outcome[calls.size()];
        this.asking = new boolean[calls.size()];
    }

    List<ScriptCall.Outcome> run() {
        Map<HostAndPort, List<Integer>> pending = new LinkedHashMap<>();
        for (int i = 0; i < calls.size(); i++) {
            add(pending, nodes.nodes.nodeFor(calls.get(i).routingKey()), i);
        }
        for (int round = 0; !pending.isEmpty(); round++) {
            boolean last = round == NodeCalls.LAST_TRY;
            Map<HostAndPort, List<Integer>> next = new LinkedHashMap<>();
            boolean tryAgain = false;
            for (Map.Entry<HostAndPort, List<Integer>> group : pending.entrySet()) {
                tryAgain |= send(group.getKey(), group.getValue(), last, next);
            }
            pending = next;
            if (tryAgain && !last) {
                Durations.pause(NodeCalls.REDIRECT_PAUSES_MILLIS[round + 1]);
            }
        }
        return Arrays.asList(outcomes);
    }

    /** Sends one node's calls; those to send again go to {@code next}. @return whether one said TRYAGAIN */
    private boolean send(HostAndPort node, List<Integer> indices, boolean last, Map<HostAndPort, List<Integer>> next) {
        if (node == null) {
            fail(indices, nodes.noNodeFor(calls.get(indices.get(0)).routingKey()));
            return false;
        }
        Object[] replies;
        try {
            replies = nodes.onNode(node, false, "running " + indices.size() + " script call(s) in a pipeline",
                    (connection, unused) -> NodeConnections.whole(connection, () -> pipeline(connection, indices)));
        } catch (NodeCalls.NotSentFailure failed) {
            // Nothing went out: a renewed slot map may name another node (a promoted replica).
            for (int i : indices) {
                HostAndPort elsewhere = last ? null : nodes.renewedNode(calls.get(i).routingKey(), node);
                if (elsewhere == null) {
                    outcomes[i] = ScriptCall.Outcome.failed(failed);
                } else {
                    asking[i] = false;
                    add(next, elsewhere, i);
                }
            }
            return false;
        } catch (RedisFailureException failed) {
            fail(indices, failed);
            return false;
        }
        boolean tryAgain = false;
        for (int j = 0; j < indices.size(); j++) {
            int i = indices.get(j);
            Object reply = replies[j];
            if (!(reply instanceof JedisDataException)) {
                try {
                    outcomes[i] = ScriptCall.Outcome.of(Replies.longs(reply, nodes.description, calls.get(i).script));
                } catch (RedisFailureException unexpected) {
                    outcomes[i] = ScriptCall.Outcome.failed(unexpected);
                }
            } else if (last || !NodeCalls.sendAgain((JedisDataException) reply)) {
                outcomes[i] = ScriptCall.Outcome.failed(nodes.refusal(node, calls.get(i).script.running,
                        (JedisDataException) reply));
            } else if (reply instanceof JedisRedirectionException) {
                asking[i] = reply instanceof JedisAskDataException;
                add(next, ((JedisRedirectionException) reply).getTargetNode(), i);
            } else {
                add(next, node, i);
                tryAgain = true;
            }
        }
        return tryAgain;
    }

    /**
     * Writes every call (ASKING before those that need it), then reads every reply; error replies are
     * kept as the reply, not thrown. Calls answered NOSCRIPT go out again with EVAL, in a second
     * pipeline on the same connection. Replies may still be on the wire when it breaks off: the
     * connection is never reused then ({@link NodeConnections#whole}).
     */
    private Object[] pipeline(Connection connection, List<Integer> indices) {
        Object[] replies = exchange(connection, indices, false);
        List<Integer> notLoaded = new ArrayList<>();
        boolean moved = false;
        for (int j = 0; j < replies.length; j++) {
            if (replies[j] instanceof JedisNoScriptException) {
                notLoaded.add(j);
            }
            moved |= replies[j] instanceof JedisMovedDataException;
        }
        if (!notLoaded.isEmpty()) {
            // Redis restarted, failed over or had SCRIPT FLUSH: those calls did not run. EVAL loads
            // the script and runs the call in the same round trip.
            List<Integer> again = new ArrayList<>(notLoaded.size());
            for (int j : notLoaded) {
                again.add(indices.get(j));
            }
            Object[] evaluated = exchange(connection, again, true);
            for (int k = 0; k < notLoaded.size(); k++) {
                replies[notLoaded.get(k)] = evaluated[k];
            }
        }
        if (moved) {
            // As for a single call: the node that answered MOVED tells the new slot map.
            nodes.nodes.slotsMoved(connection);
        }
        return replies;
    }

    private Object[] exchange(Connection connection, List<Integer> indices, boolean withSource) {
        int sent = 0;
        for (int i : indices) {
            ScriptCall call = calls.get(i);
            if (asking[i]) {
                connection.sendCommand(Protocol.Command.ASKING);
                sent++;
            }
            connection.sendCommand(withSource ? commands.eval(call.script.source(), call.keys, call.args).getArguments()
                    : commands.evalsha(call.script.sha1(), call.keys, call.args).getArguments());
            sent++;
        }
        List<Object> read = connection.getMany(sent);
        Object[] replies = new Object[indices.size()];
        for (int j = 0, at = 0; j < replies.length; j++, at++) {
            // Each ASKING's OK is passed over; an error there (no ASK state) shows in the call's reply.
            at += asking[indices.get(j)] ? 1 : 0;
            replies[j] = read.get(at);
        }
        return replies;
    }

    private void fail(List<Integer> indices, RedisFailureException failure) {
        for (int i : indices) {
            outcomes[i] = ScriptCall.Outcome.failed(failure);
        }
    }

    private static void add(Map<HostAndPort, List<Integer>> groups, HostAndPort node, int index) {
        groups.computeIfAbsent(node, n -> new ArrayList<>()).add(index);
    }
}
