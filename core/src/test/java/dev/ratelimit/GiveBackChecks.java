package dev.ratelimit;

import dev.ratelimit.EffectiveHistory.Event;
import dev.ratelimit.internal.redis.ScriptedRedisGateway;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checks {@link GiveBacksModel} runs after every step, for each client's current epoch: (1) every
 * admission is one that one place admits for the effective history ({@link OnePlace}); (2) Redis'
 * state is no laxer than one place's: fixed-window and sliding-log count no fewer permits (and
 * sliding-window in neither of its two windows), the buckets hold no more tokens (leaky-bucket: a
 * level no lower), gcra's TAT is no earlier; (3) the state's size is within its bound: a value of the
 * algorithm's small format, a TTL on every key, and a sliding log of at most the anchor, the limit
 * (the largest in force lately), the entries booked ahead of its last write and one entry per recent
 * after-charge. Redis is read with plain commands, unheard by the model and unfailed, and its values
 * decoded as the scripts decode them.
 */
final class GiveBackChecks {
    private static final Pattern FIXED = Pattern.compile("^(\\d+)$|^r(\\d+):(\\d+):(\\d+)$");
    private static final Pattern WINDOWS = Pattern.compile("^w(\\d+) (\\d+) (\\d+) (\\d+)$");
    private static final Pattern LEAKY = Pattern.compile("^l(\\d+) (\\d+) (\\d+)( \\d+)?$");
    private static final Pattern TOKENS = Pattern.compile("^t(\\d+) (\\d+) (\\d+)( \\d+( \\d+)?)?$");
    private static final Pattern TAT = Pattern.compile("^-(\\d+) (\\d+)( \\d+( \\d+)?)?$");

    private final GiveBacksModel model;
    private final OnePlace onePlace;
    long statesChecked;

    GiveBackChecks(GiveBacksModel model, OnePlace onePlace) {
        this.model = model;
        this.onePlace = onePlace;
    }

    private Rule rule() {
        return model.rule;
    }

    /** Checks every client now; forgets what no longer matters of their histories. */
    void afterStep() {
        for (int c = 0; c < GiveBacksModel.CLIENTS; c++) {
            List<Event> events = model.history.events(c);
            OnePlace.Replay replay = onePlace.replay(events, model.now());
            if (replay.violation() != null) {
                String violation = "client c" + c + " epoch " + model.history.epoch[c] + ": " + replay.violation()
                        + "; its effective history: " + last(events);
                model.check(false, () -> violation);
            }
            state(c, replay, events);
            model.history.forget(c, replay.forgettable());
        }
    }

    private static String last(List<Event> events) {
        return events.subList(Math.max(0, events.size() - 30), events.size()).toString();
    }

    private void state(int c, OnePlace.Replay replay, List<Event> events) {
        String key = model.redisKey(c);
        ScriptedRedisGateway redis = model.redis;
        long now = Math.floorDiv(model.now(), 1000);
        String who = "client c" + c + " epoch " + model.history.epoch[c] + ": ";
        long pttl = (Long) redis.command("PTTL", key);
        model.check(pttl != -1 || !model.config.switches().keyTtls(), () -> who + "its key " + key + " has no TTL: "
                + redis.command("TYPE", key) + " " + last(events));
        statesChecked++;
        if (rule().algorithm() == Algorithm.SLIDING_LOG) {
            slidingLog(c, key, replay, events, who);
            return;
        }
        Object stored = redis.command("GET", key);
        String value = stored == null ? "" : (String) stored;
        switch (rule().algorithm()) {
            case FIXED_WINDOW -> {
                Matcher m = matches(FIXED, value, who);
                long counted = m == null ? 0 : m.group(1) != null ? Long.parseLong(m.group(1))
                        : now < Long.parseLong(m.group(4)) ? Long.parseLong(m.group(2)) : Long.parseLong(m.group(3));
                model.check(counted >= replay.value(), () -> who + "Redis counts " + counted + " permits in its window ('"
                        + value + "'), one place " + replay.value() + ": " + last(events));
            }
            case SLIDING_WINDOW -> {
                Matcher m = matches(WINDOWS, value, who);
                long index = Math.floorDiv(now, rule().windowMicros());
                long stored0 = m == null ? Long.MIN_VALUE : Long.parseLong(m.group(1));
                long current = stored0 == index ? Long.parseLong(m.group(2)) : 0;
                long previous = stored0 == index ? Long.parseLong(m.group(3)) : stored0 == index - 1 ? Long.parseLong(m.group(2)) : 0;
                model.check(current >= replay.value() && previous >= replay.other(), () -> who + "Redis counts " + current
                        + " in this window and " + previous + " in the previous ('" + value + "'), one place " + replay.value()
                        + " and " + replay.other() + ": " + last(events));
            }
            case LEAKY_BUCKET -> {
                Matcher m = matches(LEAKY, value, who);
                long leak = Long.parseLong(onePlace.arguments(rule().limit()).get(2));
                long level = m == null ? 0 : OnePlace.levelAt(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), now, leak);
                model.check(level >= replay.value(), () -> who + "Redis' bucket is at " + level + " units ('" + value
                        + "'), below one place's " + replay.value() + ": " + last(events));
            }
            case TOKEN_BUCKET -> {
                Matcher m = matches(TOKENS, value, who);
                List<String> args = onePlace.arguments(rule().limit());
                long capacity = Long.parseLong(args.get(0));
                long refill = Long.parseLong(args.get(2));
                long redisAt = m == null ? now : Long.parseLong(m.group(2));
                long at = Math.max(now, Math.max(redisAt, replay.other()));
                long redisTokens = m == null ? capacity : OnePlace.tokensAt(Long.parseLong(m.group(1)), redisAt, at, capacity, refill);
                long oneplace = OnePlace.tokensAt(replay.value(), replay.other(), at, capacity, refill);
                model.check(redisTokens <= oneplace, () -> who + "Redis' bucket holds " + redisTokens + " units at +"
                        + (at - now) + "us ('" + value + "'), more than one place's " + oneplace + ": " + last(events));
            }
            default -> {
                Matcher m = matches(TAT, value, who);
                long tat = Math.max(now, m == null ? now : Long.parseLong(m.group(1)));
                long oneplace = Math.max(now, replay.value());
                model.check(tat >= oneplace, () -> who + "Redis' TAT ('" + value + "') is " + (oneplace - tat)
                        + " us earlier than one place's: " + last(events));
            }
        }
    }

    /** The value's fields, or null for no value; a value of another format fails the step. */
    private Matcher matches(Pattern format, String value, String who) {
        if (value.isEmpty()) {
            return null;
        }
        Matcher m = format.matcher(value);
        boolean small = m.matches() && value.length() <= 100;
        model.check(small, () -> who + "Redis holds '" + value + "', not a small " + rule().algorithm().configName() + " state");
        return small ? m : null;
    }

    /**
     * The log counts no fewer permits than one place in the window (entries booked ahead count at once,
     * as one place's delayed events after now do), and holds no more entries than its bound: after its
     * last write (which trims to the anchor) at most the limit of entries admitted in the window
     * before it, those booked after it, one per after-charge that may still be in the window, and the anchor.
     */
    private void slidingLog(int c, String key, OnePlace.Replay replay, List<Event> events, String who) {
        List<?> log = (List<?>) model.redis.command("ZRANGE", key, "0", "-1", "WITHSCORES");
        long size = log.size() / 2;
        long now = Math.floorDiv(model.now(), 1000);
        long counted = counted(log, now);
        model.check(counted >= replay.value(), () -> who + "Redis' log counts " + counted + " permits in the window, one place "
                + replay.value() + ": " + last(events));
        if (size == 0) {
            return;
        }
        long window = rule().windowMicros() * 1000;
        long written = model.calls.lastWrite[c];
        long writtenMicros = Math.floorDiv(written, 1000);
        long ahead = 0;
        for (int i = 1; i < log.size(); i += 2) {
            ahead += Long.parseLong((String) log.get(i)) > writtenMicros ? 1 : 0;
        }
        long charges = events.stream()
                .filter(e -> e.kind == EffectiveHistory.Kind.CHARGE && e.nanos > written - 2 * window - 1_000_000).count();
        long bookedAhead = ahead;
        long limit = model.limits.max(written - 3 * window, written);
        long bound = limit + bookedAhead + charges + 1;
        model.check(size <= bound, () -> who + "Redis' log holds " + size + " entries, over its bound " + bound + " (the limit "
                + limit + ", " + bookedAhead + " booked after its last write at +" + (writtenMicros - Math.floorDiv(model.now(), 1000))
                + "us, " + charges + " after-charges, the anchor): " + log);
    }

    /**
     * The permits the log counts in the window, read as sliding-log.lua's check() reads it: the newest
     * total less the anchor's (the newest entry at or before now - window), when the newest entry is
     * still in the window.
     */
    private long counted(List<?> log, long now) {
        if (log.isEmpty() || Long.parseLong((String) log.get(log.size() - 1)) <= now - rule().windowMicros()) {
            return 0;
        }
        long base = 0;
        for (int i = 0; i < log.size(); i += 2) {
            base = Long.parseLong((String) log.get(i + 1)) <= now - rule().windowMicros() ? Long.parseLong((String) log.get(i)) : base;
        }
        return Long.parseLong((String) log.get(log.size() - 2)) - base;
    }
}
