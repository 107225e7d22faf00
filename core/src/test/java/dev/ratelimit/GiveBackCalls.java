package dev.ratelimit;

import dev.ratelimit.EffectiveHistory.Event;
import dev.ratelimit.EffectiveHistory.Kind;
import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import dev.ratelimit.internal.redis.ScriptedRedisGateway.Executed;
import dev.ratelimit.internal.redis.ScriptedRedisGateway.Outcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link GiveBacksModel} learns from the calls its Redis runs, heard as they run, into the
 * {@link EffectiveHistory}: each admission the limiter script counted (reply lost or not), at its
 * instant, and each delayed one at its turn; each give-back (a refund, or an after-charge below the
 * cost) that Redis applied, to the admission it was sent for, whenever it lands (a held one when it
 * is released; the second run of one applied twice is not the caller's and counts nothing); each
 * after-charge taken, at its instant in the client's state then; each DEL of a client's key (a
 * reset, whatever became of its reply), which starts the client's next epoch.
 */
final class GiveBackCalls {
    private final String limiterScript;
    private final Map<String, Integer> clientOf;
    private final EffectiveHistory history;
    /** The admissions counted during the current operation, for the decision it returns. */
    final List<Event> heard = new ArrayList<>();
    /** The admission the next refund.lua call gives back to, set by the model around refund and charge. */
    Event target;
    /** The admission each refund.lua call heard gives back to, by its arguments (kept as sent while held). */
    private final Map<List<String>, Event> giveBacks = new IdentityHashMap<>();
    /** Per client, the instant (ns) of the last write that adds to its state (an admission, a booking, a charge). */
    final long[] lastWrite;
    /** What happened since the model last took it, for its step log. */
    private final StringBuilder notes = new StringBuilder();
    long admissions;
    long delayed;
    long applied;
    long dropped;
    long charged;
    long replayed;
    long resets;

    GiveBackCalls(String limiterScript, Map<String, Integer> clientOf, EffectiveHistory history, ScriptedRedisGateway redis) {
        this.limiterScript = limiterScript;
        this.clientOf = clientOf;
        this.history = history;
        this.lastWrite = new long[history.epoch.length];
        Arrays.fill(lastWrite, Long.MIN_VALUE / 4);
        redis.observe(this::heard);
    }

    private int client(String key) {
        return clientOf.getOrDefault(key, -1);
    }

    private static long micros(long nanos) {
        return Math.floorDiv(nanos, 1000);
    }

    private void heard(Executed call) {
        boolean ran = call.outcome() != Outcome.FAILED && call.outcome() != Outcome.HELD;
        // A reset deletes the client's keys: a DEL, or over scripts client-reset.lua (keys, then the guard).
        if ((call.kind() == ScriptedRedisGateway.Call.DELETE || call.isScript("client-reset")) && ran) {
            for (String key : call.keys()) {
                int c = client(key);
                if (c >= 0) {
                    history.newEpoch(c);
                    resets++;
                    note("DEL c" + c + " -> epoch " + history.epoch[c]);
                }
            }
        } else if (call.isScript(limiterScript)) {
            limiterCall(call, ran);
        } else if (call.isScript("refund")) {
            refundCall(call, ran);
        }
        if (call.outcome() != Outcome.ANSWERED && !call.isScript("refund")) {
            note((call.script() == null ? call.kind().toString() : call.script().toString()) + " " + call.outcome());
        }
    }

    private void limiterCall(Executed call, boolean ran) {
        int c = client(call.keys().get(0));
        List<Long> reply = call.reply();
        if (c < 0 || !ran || reply == null || call.args().get(0).startsWith("0")) {
            return;
        }
        long permits = Long.parseLong(call.args().get(1));
        Event event;
        if (reply.get(0) == 1) {
            event = history.add(Kind.ADMITTED, c, call.nanos(), call.nanos(), permits);
            admissions++;
        } else if (reply.get(0) == 4) {
            // A delayed admission: {DELAYED, 1, remaining, wait_us, reset_after_us, receipt, life}.
            event = history.add(Kind.DELAYED, c, (micros(call.nanos()) + reply.get(3)) * 1000, call.nanos(), permits);
            delayed++;
        } else {
            return;
        }
        lastWrite[c] = call.nanos();
        heard.add(event);
        if (call.outcome() == Outcome.REPLY_LOST) {
            note("c" + c + " " + event + " counted, its reply lost");
        }
    }

    private void refundCall(Executed call, boolean ran) {
        int c = client(call.keys().get(0));
        boolean charge = call.args().get(0).startsWith("charge ");
        Event to = giveBacks.computeIfAbsent(call.args(), args -> target);
        long permits = Long.parseLong(call.args().get(2));
        String what = (charge ? "charge c" : "give-back c") + c + " x" + permits;
        if (!ran) {
            if (call.outcome() == Outcome.FAILED) {
                giveBacks.remove(call.args());
            }
            note(what + " " + call.outcome());
            return;
        }
        if (call.outcome() == Outcome.REPLAYED) {
            replayed++;
            note(what + " applied again (" + call.reply() + ")");
            return;
        }
        giveBacks.remove(call.args());
        boolean done = call.reply() != null && call.reply().contains(1L);
        if (charge) {
            if (done) {
                // Charged at the rules its admission was decided under (RefundCalls): the limit then.
                history.add(Kind.CHARGE, c, call.nanos(), to == null ? call.nanos() : to.decidedNanos, permits);
                lastWrite[c] = call.nanos();
                charged++;
            }
            note(what + (done ? " taken" : " not taken") + (call.outcome() == Outcome.ANSWERED ? "" : " " + call.outcome()));
            return;
        }
        if (done && to != null && to.giveBack(permits)) {
            applied++;
        } else if (!done) {
            dropped++;
        }
        note(what + (done ? " applied to " + to + " of epoch " + (to == null ? "?" : to.epoch) : " dropped")
                + (call.outcome() == Outcome.ANSWERED ? "" : " " + call.outcome()));
    }

    /** A restart that lost the data: every client's next epoch. */
    void restart() {
        for (int c = 0; c < history.epoch.length; c++) {
            history.newEpoch(c);
        }
        note("every client -> a new epoch");
    }

    void note(String what) {
        notes.append(" [").append(what).append(']');
    }

    /** The notes since last taken. */
    String takeNotes() {
        String taken = notes.toString();
        notes.setLength(0);
        return taken;
    }
}
