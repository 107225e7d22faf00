package dev.ratelimit;

import java.util.ArrayList;
import java.util.List;

/**
 * What one place would have counted for each client of {@link GiveBacksModel}, per epoch (a reset or
 * a restart that lost the data starts one): every admission Redis counted at the instant it takes
 * effect (a delayed one at its turn, now + its wait), reply lost or not; less what give-backs that
 * Redis applied took back from it (each receipt once: a second application is no give-back the
 * caller made); plus each after-charge's extra permits at the instant Redis took them. Only the
 * current epoch's events are kept in order; an event of an earlier one may still be given back to,
 * which leaves the current epoch as it is (one place would not give it there).
 */
final class EffectiveHistory {
    /** What an event is: an admission now, a delayed one at its turn, or an after-charge's extra permits. */
    enum Kind {
        ADMITTED, DELAYED, CHARGE
    }

    /** One event: its client, epoch, instant, permits as they stand after give-backs, and its place in the calls. */
    static final class Event {
        final Kind kind;
        final int client;
        final int epoch;
        final long nanos;
        final long decidedNanos;
        final long seq;
        final long taken;
        long permits;
        /** Permits given back to it by Redis (each receipt at most once). */
        long givenBack;
        boolean settled;

        Event(Kind kind, int client, int epoch, long nanos, long decidedNanos, long seq, long permits) {
            this.kind = kind;
            this.client = client;
            this.epoch = epoch;
            this.nanos = nanos;
            this.decidedNanos = decidedNanos;
            this.seq = seq;
            this.taken = permits;
            this.permits = permits;
        }

        long micros() {
            return Math.floorDiv(nanos, 1000);
        }

        boolean checked() {
            return kind != Kind.CHARGE;
        }

        /** Takes back {@code back} permits, once per event; returns false for a second give-back. */
        boolean giveBack(long back) {
            if (settled) {
                return false;
            }
            settled = true;
            givenBack = Math.min(taken, back);
            permits = taken - givenBack;
            return true;
        }

        @Override
        public String toString() {
            String what = kind == Kind.CHARGE ? "charge " : kind == Kind.DELAYED ? "delayed " : "";
            return what + permits + (givenBack > 0 ? "(of " + taken + ")" : "") + "@" + micros() % 100_000_000 + "us"
                    + (kind == Kind.DELAYED ? " (decided at " + Math.floorDiv(decidedNanos, 1000) % 100_000_000 + "us)" : "");
        }
    }

    private final List<List<Event>> events = new ArrayList<>();
    final int[] epoch;
    private long seq;

    EffectiveHistory(int clients) {
        this.epoch = new int[clients];
        for (int c = 0; c < clients; c++) {
            events.add(new ArrayList<>());
        }
    }

    /** Adds an event of the client's current epoch in its place by instant (then by order heard). */
    Event add(Kind kind, int client, long nanos, long decidedNanos, long permits) {
        Event event = new Event(kind, client, epoch[client], nanos, decidedNanos, ++seq, permits);
        List<Event> list = events.get(client);
        int at = list.size();
        while (at > 0 && list.get(at - 1).micros() > event.micros()) {
            at--;
        }
        list.add(at, event);
        return event;
    }

    /** A reset or a restart: the client's state is gone, and what it had is no longer one place's either. */
    void newEpoch(int client) {
        epoch[client]++;
        events.get(client).clear();
    }

    /** The client's events in its current epoch, in order; live. */
    List<Event> events(int client) {
        return events.get(client);
    }

    /** Forgets the client's first {@code count} events: the replay showed that nothing before them matters any more. */
    void forget(int client, int count) {
        if (count > 0) {
            events.get(client).subList(0, count).clear();
        }
    }
}
