package dev.ratelimit.internal.redis;

import dev.ratelimit.internal.redisinjvm.InJvmRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@link ScriptedRedisGateway} does to its calls on a test's behalf ({@link ScriptedRedisGateway#faults()}):
 * failures, lost replies, refunds held or replayed, and actions run inside a call. Each happens to
 * whole calls; an {@code evalAll} is one call per script. Not for threads, as the gateway is not.
 */
public final class CallFaults {
    /** The life in a gcra ({@code -<tat> <life>...}) or token-bucket ({@code t<tokens> <at> <life>...}) state. */
    private static final Pattern LIFE = Pattern.compile("^(?:-\\d+|t\\d+ \\d+) (\\d+)");
    private int failuresLeft;
    private boolean failingAll;
    private boolean errorReplies;
    private int repliesToLose;
    private boolean holdingRefunds;
    private boolean replayArmed;
    private int replayed;
    private Runnable beforeNext;
    private String beforeScript;
    private Runnable afterNext;
    private String afterScript;
    private boolean lifeRewriteArmed;
    private int livesRewritten;
    private final InJvmRedis redis;
    final List<ScriptedRedisGateway.Executed> held = new ArrayList<>();

    CallFaults(InJvmRedis redis) {
        this.redis = redis;
    }

    /** The next {@code n} calls fail as if Redis could not be reached, before doing anything. */
    public void failNext(int n) {
        failuresLeft = n;
        errorReplies = false;
    }

    /** The next {@code n} calls fail with an error reply (Redis answered, refusing), before doing anything. */
    public void failNextWithErrorReply(int n) {
        failuresLeft = n;
        errorReplies = true;
    }

    /** Every call fails as if Redis could not be reached, until {@link #recover()}. */
    public void failAll() {
        failingAll = true;
        errorReplies = false;
    }

    /** Ends the failures and lost replies injected; refunds held stay held. */
    public void recover() {
        failingAll = false;
        failuresLeft = 0;
        repliesToLose = 0;
    }

    /** The next {@code n} calls run, then fail as a timeout would: the caller never has their reply. */
    public void loseNextReplies(int n) {
        repliesToLose = n;
    }

    /**
     * While on, calls of {@code refund.lua} are kept instead of run, and fail as timeouts; {@link
     * ScriptedRedisGateway#releaseHeld} runs one later, in any order: a give-back delayed and reordered.
     */
    public void holdRefunds(boolean hold) {
        holdingRefunds = hold;
    }

    public boolean holdingRefunds() {
        return holdingRefunds;
    }

    /** How many refunds are held. */
    public int heldRefunds() {
        return held.size();
    }

    /**
     * One give-back applied twice, a negative test's fault (the limiter sends each receipt once): the
     * next {@code refund.lua} call that gives something back runs a second time at once. A call whose
     * second run gives nothing back leaves it armed for the next.
     */
    public void replayNextRefund() {
        replayArmed = true;
    }

    /** How many refunds were applied twice by {@link #replayNextRefund}. */
    public int replayedRefunds() {
        return replayed;
    }

    /**
     * A give-back into a new life, a negative test's fault (gcra and token-bucket receipts carry the
     * life of the state they were taken in, and refund.lua gives back only into that life): refund.lua
     * calls (not charges) whose life argument is not the life the client's state has now are sent with
     * that life instead, so that a stale give-back lands in the new life. Stays armed until such a call
     * gives something back (most stale receipts name no place in the new life's frame).
     */
    public void refundIntoCurrentLife() {
        lifeRewriteArmed = true;
    }

    /** How many refunds {@link #refundIntoCurrentLife} rewrote that gave something back. */
    public int livesRewritten() {
        return livesRewritten;
    }

    /**
     * A negative test's fault: while on, ZREMRANGEBYSCORE removes nothing (replies 0), so that a
     * sliding log's writes never trim it.
     */
    public void ignoreTrims(boolean ignore) {
        redis.ignoreTrims(ignore);
    }

    /** Runs {@code action} inside the next call, before it does anything (and before an injected failure). */
    public void beforeNextCall(Runnable action) {
        beforeNextScript(null, action);
    }

    /** Runs {@code action} inside the next call, after it ran and before its caller has the reply. */
    public void afterNextCall(Runnable action) {
        afterNextScript(null, action);
    }

    /** As {@link #beforeNextCall}, for the next run of the named script ({@code "gcra"}); null: any call. */
    public void beforeNextScript(String name, Runnable action) {
        beforeNext = action;
        beforeScript = name;
    }

    /** As {@link #afterNextCall}, for the next run of the named script ({@code "gcra"}); null: any call. */
    public void afterNextScript(String name, Runnable action) {
        afterNext = action;
        afterScript = name;
    }

    /** Drops the actions armed and not yet run; returns whether there were any. */
    public boolean cancelActions() {
        boolean armed = beforeNext != null || afterNext != null;
        beforeNext = null;
        afterNext = null;
        return armed;
    }

    // ---- for the gateway ----

    /** The action due before a call of this script (null for none), taken. */
    Runnable takeBefore(LuaScript script) {
        if (beforeNext == null || (beforeScript != null && (script == null || !script.toString().equals(beforeScript + ".lua")))) {
            return null;
        }
        Runnable action = beforeNext;
        beforeNext = null;
        return action;
    }

    /** The action due after this call (null for none), taken. */
    Runnable takeAfter(ScriptedRedisGateway.Executed executed) {
        if (afterNext == null || (afterScript != null && !executed.isScript(afterScript))) {
            return null;
        }
        Runnable action = afterNext;
        afterNext = null;
        return action;
    }

    /** Whether this call fails before running (counting it off); {@link #errorReplies()} says how. */
    boolean failNow() {
        if (!failingAll && failuresLeft == 0) {
            return false;
        }
        failuresLeft = Math.max(0, failuresLeft - 1);
        return true;
    }

    boolean errorReplies() {
        return errorReplies;
    }

    /** Whether this call's reply is lost (counting it off). */
    boolean loseNow() {
        boolean lose = repliesToLose > 0;
        repliesToLose = Math.max(0, repliesToLose - 1);
        return lose;
    }

    /**
     * The arguments of a refund.lua call as {@link #refundIntoCurrentLife} has them sent: ARGV per rule is
     * permits, receipt, life; the life the first key's state has now ({@code -<tat> <life>...} for gcra,
     * {@code t<tokens> <at> <life>...} for token-bucket) replaces the receipt's when they differ.
     */
    List<String> refundArguments(List<String> keys, List<String> args) {
        if (!lifeRewriteArmed || holdingRefunds || args.get(0).startsWith("charge ") || args.size() < 5) {
            return args;
        }
        String held = redis.string(keys.get(0));
        String value = held != null ? held : "";
        Matcher life = LIFE.matcher(value);
        if (!life.find() || life.group(1).equals(args.get(4))) {
            return args;
        }
        List<String> rewritten = new ArrayList<>(args);
        rewritten.set(4, life.group(1));
        return List.copyOf(rewritten);
    }

    /** A rewritten refund ran: the fault is spent once one gave something back. */
    void rewrittenRan(boolean gaveBack) {
        if (gaveBack) {
            lifeRewriteArmed = false;
            livesRewritten++;
        }
    }

    boolean replayArmed() {
        return replayArmed;
    }

    void replayedOnce() {
        replayArmed = false;
        replayed++;
    }
}
