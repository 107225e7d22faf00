package dev.ratelimit.internal.redisinjvm;

import static dev.ratelimit.internal.redisinjvm.RedisKeyspace.arity;
import static dev.ratelimit.internal.redisinjvm.RedisKeyspace.parseLong;

import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import dev.ratelimit.internal.redisinjvm.ZSet.Item;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The sorted-set commands of {@link RedisKeyspace}, as Redis 7.0 answers them: members ordered by
 * score, then by their bytes; scores read as Redis reads them (decimal, {@code inf}, never NaN) and
 * answered as {@code %.17g}; range bounds with {@code (} for exclusive and {@code -inf}/{@code +inf};
 * ranks counted from the end when negative; an emptied set deleted.
 */
final class SortedSets {
    private SortedSets() {
    }

    /** A score bound: its value and whether it is exclusive. */
    private static final class Bound {
        private final double value;
        private final boolean exclusive;

        Bound(double value, boolean exclusive) {
            this.value = value;
            this.exclusive = exclusive;
        }

        boolean belowOrAt(double score) {
            return exclusive ? value < score : value <= score;
        }

        boolean aboveOrAt(double score) {
            return exclusive ? score < value : score <= value;
        }
    }

    static Object execute(RedisKeyspace keyspace, String name, List<String> a) {
        String key = a.isEmpty() ? "" : a.get(0);
        ZSet set = a.isEmpty() ? null : keyspace.typed(key, ZSet.class);
        switch (name) {
            case "ZADD":
                return zadd(keyspace, key, set, a);
            case "ZREM":
                return zrem(keyspace, key, set, arity(a, 2, Integer.MAX_VALUE));
            case "ZCARD":
                arity(a, 1, 1);
                return set == null ? 0L : (long) set.items.size();
            case "ZSCORE":
                arity(a, 2, 2);
                Double score = set == null ? null : set.scores.get(a.get(1));
                return score == null ? null : LuaNumbers.g(score, 17);
            case "ZCOUNT":
                arity(a, 3, 3);
                return (long) byScore(set, bound(a.get(1)), bound(a.get(2))).size();
            case "ZRANGE":
                return zrange(set, arity(a, 3, 5));
            case "ZRANGEBYSCORE":
            case "ZREVRANGEBYSCORE":
                return zrangeByScore(set, name.equals("ZREVRANGEBYSCORE"), arity(a, 3, 7));
            case "ZREMRANGEBYRANK":
            case "ZREMRANGEBYSCORE":
                return zremRange(keyspace, key, set, name.equals("ZREMRANGEBYRANK"), arity(a, 3, 3));
            default:
                throw new RedisError("ERR unknown command '" + name + "'");
        }
    }

    private static long zrem(RedisKeyspace keyspace, String key, ZSet set, List<String> a) {
        long removed = 0;
        if (set != null) {
            for (String member : a.subList(1, a.size())) {
                removed += set.remove(member) ? 1 : 0;
            }
            dropIfEmpty(keyspace, key, set);
        }
        return removed;
    }

    private static Object zrange(ZSet set, List<String> a) {
        boolean withScores = false;
        boolean rev = false;
        for (String option : a.subList(3, a.size())) {
            String upper = option.toUpperCase(Locale.ROOT);
            if (upper.equals("WITHSCORES")) {
                withScores = true;
            } else if (upper.equals("REV")) {
                rev = true;
            } else {
                throw new RedisError("ERR ZRANGE option " + option + " is not modelled");
            }
        }
        List<Item> items = set == null ? Collections.<Item>emptyList() : set.items;
        if (rev) {
            items = new ArrayList<>(items);
            Collections.reverse(items);
        }
        return reply(byRank(items, parseLong(a.get(1)), parseLong(a.get(2))), withScores);
    }

    private static Object zrangeByScore(ZSet set, boolean rev, List<String> a) {
        List<Item> items = byScore(set, bound(a.get(rev ? 2 : 1)), bound(a.get(rev ? 1 : 2)));
        if (rev) {
            Collections.reverse(items);
        }
        boolean withScores = false;
        for (int i = 3; i < a.size(); i++) {
            String option = a.get(i).toUpperCase(Locale.ROOT);
            if (option.equals("WITHSCORES")) {
                withScores = true;
            } else if (option.equals("LIMIT") && i + 2 < a.size()) {
                long offset = parseLong(a.get(++i));
                long count = parseLong(a.get(++i));
                if (offset < 0 || offset >= items.size()) {
                    items = Collections.emptyList();
                } else {
                    long end = count < 0 ? items.size() : Math.min(items.size(), offset + count);
                    items = items.subList((int) offset, (int) end);
                }
            } else {
                throw new RedisError(RedisKeyspace.SYNTAX);
            }
        }
        return reply(items, withScores);
    }

    private static long zremRange(RedisKeyspace keyspace, String key, ZSet set, boolean byRank, List<String> a) {
        if (set == null) {
            return 0L;
        }
        // A copy: byRank answers a view of the set's items, which the removals change.
        List<Item> doomed = new ArrayList<>(byRank
                ? byRank(set.items, parseLong(a.get(1)), parseLong(a.get(2)))
                : byScore(set, bound(a.get(1)), bound(a.get(2))));
        for (Item item : doomed) {
            set.remove(item.member());
        }
        dropIfEmpty(keyspace, key, set);
        return doomed.size();
    }

    private static Object zadd(RedisKeyspace keyspace, String key, ZSet set, List<String> a) {
        int at = 1;
        boolean nx = false;
        boolean xx = false;
        boolean gt = false;
        boolean lt = false;
        boolean ch = false;
        boolean incr = false;
        flags:
        while (at < a.size()) {
            switch (a.get(at).toUpperCase(Locale.ROOT)) {
                case "NX":
                    nx = true;
                    break;
                case "XX":
                    xx = true;
                    break;
                case "GT":
                    gt = true;
                    break;
                case "LT":
                    lt = true;
                    break;
                case "CH":
                    ch = true;
                    break;
                case "INCR":
                    incr = true;
                    break;
                default:
                    break flags;
            }
            at++;
        }
        int pairs = a.size() - at;
        if (pairs == 0 || pairs % 2 != 0) {
            throw new RedisError(RedisKeyspace.SYNTAX);
        }
        if (nx && xx) {
            throw new RedisError("ERR XX and NX options at the same time are not compatible");
        }
        if ((gt && lt) || (nx && (gt || lt))) {
            throw new RedisError("ERR GT, LT, and/or NX options at the same time are not compatible");
        }
        if (incr && pairs != 2) {
            throw new RedisError("ERR INCR option supports a single increment-element pair");
        }
        double[] scores = new double[pairs / 2];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = score(a.get(at + 2 * i), RedisKeyspace.NOT_FLOAT);
        }
        ZSet target = set;
        if (target == null) {
            if (xx) {
                return incr ? null : 0L;
            }
            target = new ZSet();
            keyspace.put(key, target, -1);
        }
        long added = 0;
        long changed = 0;
        Double last = null;
        for (int i = 0; i < scores.length; i++) {
            String member = a.get(at + 2 * i + 1);
            Double old = target.scores.get(member);
            double score = incr && old != null ? old + scores[i] : scores[i];
            if ((nx && old != null) || (xx && old == null)
                    || (old != null && ((gt && score <= old) || (lt && score >= old)))) {
                continue;
            }
            if (target.add(member, score)) {
                added++;
            } else if (old != score) {
                changed++;
            }
            last = score;
        }
        dropIfEmpty(keyspace, key, target);
        if (incr) {
            return last == null ? null : LuaNumbers.g(last, 17);
        }
        return ch ? added + changed : added;
    }

    private static void dropIfEmpty(RedisKeyspace keyspace, String key, ZSet set) {
        if (set.items.isEmpty()) {
            keyspace.delete(key);
        }
    }

    private static List<Item> byRank(List<Item> items, long start, long stop) {
        int size = items.size();
        if (start < 0) {
            start = Math.max(0, size + start);
        }
        if (stop < 0) {
            stop = size + stop;
        }
        if (start > stop || start >= size) {
            return Collections.emptyList();
        }
        return items.subList((int) start, (int) Math.min(stop, size - 1) + 1);
    }

    private static List<Item> byScore(ZSet set, Bound min, Bound max) {
        List<Item> found = new ArrayList<>();
        if (set != null) {
            for (Item item : set.items) {
                if (min.belowOrAt(item.score()) && max.aboveOrAt(item.score())) {
                    found.add(item);
                }
            }
        }
        return found;
    }

    private static List<Object> reply(List<Item> items, boolean withScores) {
        List<Object> reply = new ArrayList<>();
        for (Item item : items) {
            reply.add(item.member());
            if (withScores) {
                reply.add(LuaNumbers.g(item.score(), 17));
            }
        }
        return reply;
    }

    private static Bound bound(String text) {
        boolean exclusive = text.startsWith("(");
        return new Bound(score(exclusive ? text.substring(1) : text, "ERR min or max is not a float"), exclusive);
    }

    /** A score as strtod reads it (no blanks, no NaN); {@code error} otherwise. */
    static double score(String text, String error) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.matches("[+-]?inf(inity)?")) {
            return lower.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!text.matches("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?")) {
            throw new RedisError(error);
        }
        return Double.parseDouble(text);
    }
}
