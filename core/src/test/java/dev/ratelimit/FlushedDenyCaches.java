package dev.ratelimit;

import java.util.Arrays;

/**
 * What {@link GiveBacksModel} holds the nodes' deny caches to at the test kit's reset: it empties every
 * node's at once ({@code RedisGateway.whenFlushed}), so each node's first decision after it, for any
 * client, asks Redis rather than answering a denial it remembered from before.
 */
final class FlushedDenyCaches {
    /** Per node and client: no decision yet since the last reset. */
    private final boolean[][] unasked;

    FlushedDenyCaches(int nodes, int clients) {
        this.unasked = new boolean[nodes][clients];
    }

    void flushed() {
        for (boolean[] node : unasked) {
            Arrays.fill(node, true);
        }
    }

    /**
     * Node {@code n} decided {@code clients} at once, answering {@code cachedDenials} of them from its deny
     * cache; the violation, or null.
     */
    String decided(int n, long cachedDenials, int... clients) {
        boolean allUnasked = true;
        for (int c : clients) {
            allUnasked &= unasked[n][c];
            unasked[n][c] = false;
        }
        return !allUnasked || cachedDenials == 0 ? null : "node n" + n + " denied " + cachedDenials + " of c"
                + Arrays.toString(clients) + " from its deny cache, the first decision since the kit's reset emptied it";
    }
}
