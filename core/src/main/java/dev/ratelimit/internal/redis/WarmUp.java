package dev.ratelimit.internal.redis;

import java.util.concurrent.TimeUnit;

/**
 * What a gateway's warm-up readied before the first decisions ({@link RedisGateway#warmUp}): the
 * nodes, their connections checked and the scripts loaded, or the failure it stopped at. Immutable.
 */
public final class WarmUp {
    /** A gateway with nothing of its own to ready (a caller's client, a test's fake). */
    static final WarmUp NOTHING_TO_DO = new WarmUp(0, 0, 0, 0, null, 0);

    private final int nodes;
    private final int connections;
    private final int wantedConnections;
    private final int scripts;
    private final String failure;
    private final long nanos;

    private WarmUp(int nodes, int connections, int wantedConnections, int scripts, String failure, long nanos) {
        this.nodes = nodes;
        this.connections = connections;
        this.wantedConnections = wantedConnections;
        this.scripts = scripts;
        this.failure = failure;
        this.nanos = nanos;
    }

    /** A warm-up that asked Redis; {@code wantedConnections}: its connections per node, on each node it reached. */
    public static WarmUp of(int nodes, int connections, int wantedConnections, int scripts, String failure, long nanos) {
        return new WarmUp(nodes, connections, wantedConnections, scripts, failure, nanos);
    }

    /** Whether Redis was asked at all: false for a gateway with nothing of its own to ready. */
    public boolean done() {
        return this != NOTHING_TO_DO;
    }

    /** Why it stopped short: Redis could not be reached or refused; null when every node answered. */
    public String failure() {
        return failure;
    }

    /** Scripts loaded (a limiter script and its batch form count as two). */
    public int scripts() {
        return scripts;
    }

    /** What was readied, for a log line: "3 of 3 connections checked on 1 node, 4 scripts loaded". */
    public String summary() {
        return connections + " of " + wantedConnections + " connections checked on " + nodes
                + (nodes == 1 ? " node, " : " nodes, ") + scripts + (scripts == 1 ? " script" : " scripts") + " loaded";
    }

    @Override
    public String toString() {
        return "WarmUp(" + (!done() ? "nothing to do" : summary() + " in " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms"
                + (failure == null ? "" : "; failed: " + failure)) + ")";
    }
}
