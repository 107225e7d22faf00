package dev.ratelimit.internal.redisinjvm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A sorted set of {@link RedisKeyspace}: its items in Redis' order (score, then bytes), and each member's score. */
final class ZSet {
    /** One member and its score. */
    static final class Item implements Comparable<Item> {
        private final double score;
        private final String member;

        Item(double score, String member) {
            this.score = score;
            this.member = member;
        }

        double score() {
            return score;
        }

        String member() {
            return member;
        }

        @Override
        public int compareTo(Item other) {
            int byScore = Double.compare(score, other.score);
            return byScore != 0 ? byScore : member.compareTo(other.member);
        }
    }

    final List<Item> items = new ArrayList<>();
    final Map<String, Double> scores = new HashMap<>();

    boolean add(String member, double score) {
        Double old = scores.put(member, score);
        if (old != null) {
            items.remove(Collections.binarySearch(items, new Item(old, member)));
        }
        Item item = new Item(score, member);
        items.add(-Collections.binarySearch(items, item) - 1, item);
        return old == null;
    }

    boolean remove(String member) {
        Double old = scores.remove(member);
        if (old == null) {
            return false;
        }
        items.remove(Collections.binarySearch(items, new Item(old, member)));
        return true;
    }
}
