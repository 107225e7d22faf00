package dev.ratelimit.internal.scripts;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.claim.QuotaGrant;
import dev.ratelimit.internal.claim.Receipt;
import dev.ratelimit.internal.redis.LuaScript;
import dev.ratelimit.internal.redis.ScriptCall;
import java.time.Duration;
import java.util.Collections;
import java.util.List;

/**
 * Decides the rules of one limiter for one client in one round trip: the seam between the engine's
 * stages and Redis. What only scripts can do (delay, lend quota, batch) is checked to run over
 * transport {@code lua} alone ({@code DelayRules}, {@code QuotaLeaseRules}, {@code tryAcquireAll}), so
 * another evaluator never gets those calls.
 */
public interface Evaluator {

    /** The governing rule's decision: the permits per rule taken if every rule allows, or only looked at. */
    Decision decide(List<String> keys, long[] permits, boolean consume);

    /**
     * As {@link #decide(List, long[], boolean)}, and an admission of an algorithm that
     * {@link dev.ratelimit.Algorithm#holdsLeases() holds leases} records {@code lease} as its own;
     * the others ignore it.
     */
    default Decision decide(List<String> keys, long[] permits, boolean consume, String lease) {
        return decide(keys, permits, consume);
    }

    /** Over the limit, the permits of one rule for the instant they free up within the wait ({@link Decision#delayed()}). */
    default Decision decideDelaying(List<String> keys, long[] permits, long maxDelayMicros) {
        throw scriptsOnly("a delayed admission");
    }

    /** The permits of one rule, a quota lease of up to {@code ask} more, and earlier ones' rests given back. */
    default Leased decideLeasing(List<String> keys, long[] permits, long ask, long lifetimeMicros, List<Receipt> returns) {
        throw scriptsOnly("a quota lease");
    }

    /** Gives back the unused parts of quota leases in one round trip (a pipeline per node); how many gave something back. */
    default int giveBackAll(List<Receipt> receipts) {
        throw scriptsOnly("a quota lease");
    }

    /** The call {@link #decide(List, long[], boolean)} makes, for a batch sent in one pipeline. */
    default ScriptCall call(List<String> keys, long[] permits, boolean consume) {
        throw scriptsOnly("a batch");
    }

    /** The decision a reply to {@link #call} holds, as {@link #decide(List, long[], boolean)} would return it. */
    default Decision decision(List<String> keys, long[] permits, List<Long> reply) {
        throw scriptsOnly("a batch");
    }

    /** Deletes a client's keys in one call, and its reset guard where admissions can be given back later. */
    void forgetClient(List<String> keys, Duration guard);

    /** The scripts this evaluator's calls run, for a warm-up to load ahead of them; none without scripts. */
    default List<LuaScript> scripts() {
        return Collections.emptyList();
    }

    /** What an evaluator without scripts answers a call the builder's checks keep from it. */
    static UnsupportedOperationException scriptsOnly(String what) {
        return new UnsupportedOperationException(what + " needs transport 'lua'");
    }

    /** A decision and, when Redis granted one with it, the quota lease taken. */
    final class Leased {
        public final Decision decision;
        /** Null unless Redis granted a lease. */
        public final QuotaGrant grant;

        Leased(Decision decision, QuotaGrant grant) {
            this.decision = decision;
            this.grant = grant;
        }
    }
}
