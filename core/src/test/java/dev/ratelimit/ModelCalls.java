package dev.ratelimit;

import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import dev.ratelimit.internal.redis.ScriptedRedisGateway.Executed;
import dev.ratelimit.internal.redis.ScriptedRedisGateway.Outcome;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * What {@link LeasesModel} learns from the calls its Redis runs, heard as they run (so also those of
 * a node acting while another's call is in flight): each admission Redis counted, with the client's
 * epoch at that instant (a DEL of its key, a reset, starts the next); each lease granted and when it
 * ends; calls that failed; give-backs that could not land, replies lost and resets, after which some
 * permits stay counted (a leak) so that the liveness check waits; the overrides each node read.
 *
 * <p>Node operations run in frames ({@link #enter}, {@link #leave}): a call heard belongs to the
 * innermost, so an operation nested inside another's call (in flight) keeps its own calls apart.
 */
final class ModelCalls {
    /** A limiter script's run for one client, with its epoch when it ran and its place among the calls heard. */
    record Seen(Executed call, int client, int epoch, long seq) {
        boolean consumed() {
            return !call.args().get(0).equals("0") && call.reply() != null;
        }

        boolean admitted() {
            return consumed() && call.reply().get(0) == 1;
        }

        boolean denied() {
            return call.reply() != null && call.reply().get(0) == 0;
        }

        /** Permits lent with the admission, 0 without a lease. */
        long granted() {
            return admitted() && call.reply().size() >= 11 ? call.reply().get(7) : 0;
        }
    }

    /** One node operation: its node, the limiter runs it made, its calls that failed. */
    static final class Frame {
        final int node;
        final List<Seen> seen = new ArrayList<>();
        int failures;

        Frame(int node) {
            this.node = node;
        }
    }

    private final String limiterScript;
    private final Map<String, Integer> clientOf;
    private final ScriptedRedisGateway redis;
    private final Deque<Frame> frames = new ArrayDeque<>();
    final int[] epoch;
    /** Per client, the last instant some of its permits were left counted without an admission. */
    final long[] leakedAt;
    /** Per node, its generation (a node replaced is a new one) and when it last read the overrides. */
    final int[] generation;
    final long[] overridesReadAt;
    /** Admissions Redis counted since the model last took them, in order. */
    final List<AdmissionBounds.Admission> counted = new ArrayList<>();
    /** Leases granted: {end in nanos, node, its generation}. */
    final PriorityQueue<long[]> leaseEnds = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    /** What happened since the model last took it, for its step log. */
    final StringBuilder notes = new StringBuilder();
    /**
     * Per node: leases granted before this call (by {@link #seq}) were dropped by the node: it read a
     * changed client-reset mark (any client's), or its rules changed (an override), or it was reset.
     */
    final long[] droppedBefore;
    /** Per node, the client-reset mark it last read (-1: none, as a node starts). */
    final long[] markRead;
    /** The calls heard so far: a call's place in their order. */
    long seq;
    long grants;
    long resetsSeen;
    /** While the test kit's reset tells every node: the overrides each reads again are every node's. */
    boolean flushing;

    ModelCalls(String limiterScript, Map<String, Integer> clientOf, int clients, int nodes, ScriptedRedisGateway redis) {
        this.limiterScript = limiterScript;
        this.clientOf = clientOf;
        this.redis = redis;
        this.epoch = new int[clients];
        this.leakedAt = new long[clients];
        Arrays.fill(leakedAt, Long.MIN_VALUE / 2);
        this.generation = new int[nodes];
        this.overridesReadAt = new long[nodes];
        Arrays.fill(overridesReadAt, Long.MIN_VALUE / 2);
        this.droppedBefore = new long[nodes];
        this.markRead = new long[nodes];
        Arrays.fill(markRead, -1);
        redis.observe(this::heard);
    }

    Frame enter(int node) {
        Frame frame = new Frame(node);
        frames.push(frame);
        return frame;
    }

    void leave(Frame frame) {
        if (frames.pop() != frame) {
            throw new IllegalStateException("frames left out of order");
        }
    }

    private void leaked(int client) {
        if (client < 0) {
            Arrays.fill(leakedAt, redis.nanoTime());
        } else {
            leakedAt[client] = redis.nanoTime();
        }
    }

    private int client(String key) {
        return clientOf.getOrDefault(key, -1);
    }

    private void heard(Executed call) {
        seq++;
        Frame frame = frames.peek();
        int node = frame == null ? -1 : frame.node;
        boolean failed = call.outcome() == Outcome.FAILED || call.outcome() == Outcome.REPLY_LOST
                || call.outcome() == Outcome.HELD;
        if (frame != null && failed) {
            frame.failures++;
        }
        boolean ran = call.outcome() != Outcome.FAILED && call.outcome() != Outcome.HELD;
        // A reset deletes the client's keys: a DEL, or with leases client-reset.lua (keys, then the guard).
        if ((call.kind() == ScriptedRedisGateway.Call.DELETE || call.isScript("client-reset")) && ran) {
            for (String key : call.keys()) {
                int client = client(key);
                if (client >= 0) {
                    epoch[client]++;
                    resetsSeen++;
                    notes.append(" [DEL c").append(client).append(" -> epoch ").append(epoch[client]).append(']');
                }
            }
            // Nodes that read the reset drop every lease and rest they hold: those stay counted.
            leaked(-1);
        } else if (call.isScript(limiterScript)) {
            int client = client(call.keys().get(0));
            Seen seen = new Seen(call, client, client < 0 ? 0 : epoch[client], seq);
            if (frame != null) {
                frame.seen.add(seen);
            }
            if (client >= 0 && ran && seen.admitted()) {
                counted.add(new AdmissionBounds.Admission(client, epoch[client], call.nanos(),
                        Long.parseLong(call.args().get(1)), false, node));
                if (seen.granted() > 0) {
                    grants++;
                    leaseEnds.add(new long[] {call.nanos() + 1000 * call.reply().get(8), node, node < 0 ? 0 : generation[node]});
                    notes.append(" [lent c").append(client).append(' ').append(seen.granted()).append(" for ")
                            .append(call.reply().get(8)).append("us]");
                }
                if (call.outcome() == Outcome.REPLY_LOST) {
                    leaked(client);
                }
            }
        } else if (call.isScript("refund")) {
            int client = client(call.keys().get(0));
            // A give-back released late (held, its call timed out) may keep part of the rest: refund.lua
            // gives a bucket's rest back only as far as what was stacked after the lease allows. What it
            // keeps stays counted until the state is next empty.
            if (call.outcome() == Outcome.FAILED || call.outcome() == Outcome.RELEASED) {
                leaked(client);
            }
            // gcra and token-bucket keep a lease's rest they cannot place exactly: the state fuller (or
            // its TAT earlier) than the lease left it, which another node's rest going back first also
            // makes. It stays counted until refill frees it, as README says; the state check still holds.
            boolean bucket = limiterScript.equals("gcra") || limiterScript.equals("token-bucket");
            if (bucket && call.outcome() == Outcome.ANSWERED && call.args().get(0).contains(" lease ")
                    && call.reply() != null && !call.reply().contains(1L)) {
                leaked(client);
            }
            notes.append(" [refund c").append(client).append(' ').append(call.args().get(2)).append(' ')
                    .append(call.outcome()).append(call.reply() == null ? "" : " " + call.reply()).append(']');
        } else if (call.isScript("overrides") && call.outcome() == Outcome.ANSWERED && flushing) {
            // Every node reads the overrides again after the flush, the same mark: none drops leases at its next read.
            Arrays.fill(overridesReadAt, call.nanos());
            Arrays.fill(markRead, call.reply().get(2));
        } else if (call.isScript("overrides") && call.outcome() == Outcome.ANSWERED && node >= 0) {
            overridesReadAt[node] = call.nanos();
            // LiveOverrides applies what it read: a mark other than the last it read drops every lease.
            long mark = call.reply().get(2);
            if (mark != markRead[node]) {
                markRead[node] = mark;
                droppedBefore[node] = seq;
                // Dropped, not given back: their permits stay counted until their window passes.
                leaked(-1);
                notes.append(" [n").append(node).append(" reads reset mark ").append(mark).append(']');
            }
        }
        if (failed && call.isScript("client-reset")) {
            // The node dropped the client's lease before the reset's call failed: those permits stay counted.
            leaked(client(call.keys().get(0)));
        }
        if (failed && !call.isScript("refund")) {
            notes.append(" [").append(call.script() == null ? call.kind() : call.script()).append(' ')
                    .append(call.outcome()).append(']');
        }
    }

    /** The test kit's reset: every key gone, so every client's next epoch. */
    void flushed() {
        for (int c = 0; c < epoch.length; c++) {
            epoch[c]++;
        }
        resetsSeen++;
        notes.append(" [every client -> a new epoch]");
    }

    /** The notes since last taken. */
    String takeNotes() {
        String taken = notes.toString();
        notes.setLength(0);
        return taken;
    }
}
