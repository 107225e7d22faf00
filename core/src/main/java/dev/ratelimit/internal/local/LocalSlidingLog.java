package dev.ratelimit.internal.local;

/**
 * sliding-log.lua: one entry per admitted request, its time and the running total of permits,
 * in a ring; the total of the newest entry that left the window is the anchor.
 */
final class LocalSlidingLog extends LocalRuleState {
    /** Totals are lowered by the anchor's before they could overflow (the script rebases at 2^52 for Lua's doubles). */
    private static final long REBASE_AT = 1L << 62;
    private final long limit;
    private final long window;
    private long[] stamps = new long[4];
    private long[] totals = new long[4];
    private int head;
    private int size;
    private long anchor;

    LocalSlidingLog(long limit, long window) {
        this.limit = limit;
        this.window = window;
    }

    private int slot(int index) {
        return (head + index) & (stamps.length - 1);
    }

    /** Entries at or before the window's start no longer count, now or later (the clock only moves on). */
    private void trim(long now) {
        while (size > 0 && stamps[head] <= now - window) {
            anchor = totals[head];
            head = slot(1);
            size--;
        }
    }

    private long count() {
        return size == 0 ? 0 : totals[slot(size - 1)] - anchor;
    }

    @Override
    boolean check(long permits, boolean consume, long now, long[] reply, int at) {
        trim(now);
        long count = count();
        // As the script: only a peek or a denial reports the reset before this request (an admission
        // reports its own from commit); a rule that allows within a denied decision reports 0.
        long reset = count > 0 && (!consume || count + permits > limit) ? stamps[slot(size - 1)] + window - now : 0;
        if (count + permits > limit) {
            long retry = reset;
            if (count > 0 && permits <= limit) {
                retry = reaching(anchor + count + permits - limit) + window - now;
            }
            answer(reply, at, false, limit - count, retry, reset);
            return false;
        }
        answer(reply, at, true, limit - count, 0, reset);
        return true;
    }

    /** The time of the oldest entry whose running total reaches the target: its leaving makes room. */
    private long reaching(long target) {
        int lo = 0;
        int hi = size - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (totals[slot(mid)] >= target) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return stamps[slot(lo)];
    }

    @Override
    void commit(long permits, long now, long[] reply, int at) {
        trim(now);
        long count = count();
        long stamp = now;
        long total = permits;
        if (count == 0) {
            // An empty window: the log starts again from 0, in a small ring.
            if (stamps.length > 16) {
                stamps = new long[4];
                totals = new long[4];
            }
            head = 0;
            size = 0;
            anchor = 0;
        } else {
            int newest = slot(size - 1);
            stamp = Math.max(now, stamps[newest] + 1);
            total = totals[newest] + permits;
            if (total > REBASE_AT) {
                for (int i = 0; i < size; i++) {
                    totals[slot(i)] -= anchor;
                }
                total -= anchor;
                anchor = 0;
            }
        }
        append(stamp, total);
        reply[at + REMAINING] = limit - count - permits;
        // As the script: a stamp after now (one microsecond apart) leaves that much later, and says so.
        reply[at + RESET] = stamp + window - now;
    }

    private void append(long stamp, long total) {
        if (size == stamps.length) {
            long[] newStamps = new long[size * 2];
            long[] newTotals = new long[size * 2];
            for (int i = 0; i < size; i++) {
                newStamps[i] = stamps[slot(i)];
                newTotals[i] = totals[slot(i)];
            }
            stamps = newStamps;
            totals = newTotals;
            head = 0;
        }
        int at = slot(size);
        stamps[at] = stamp;
        totals[at] = total;
        size++;
    }

    @Override
    boolean clear(long now) {
        return size == 0 || stamps[slot(size - 1)] <= now - window;
    }
}

