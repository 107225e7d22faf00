package dev.ratelimit.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * Each policy's own keys beside its clients': its overrides hash and its client-reset mark
 * ({@code <prefix><policy>:{<policy>}:overrides}, {@code ...:client-reset}), which every node's
 * read of the overrides keeps (the mark is made again when absent). Tests that look at what the
 * clients hold leave them out.
 */
public final class PolicyKeys {
    private PolicyKeys() {
    }

    /** Whether the key is a policy's own, not a client's. */
    public static boolean isPolicyKey(String key) {
        return key.endsWith("}:client-reset") || key.endsWith("}:overrides");
    }

    /** The keys that are not a policy's own, in their order. */
    public static List<String> without(List<String> keys) {
        List<String> clients = new ArrayList<>();
        for (String key : keys) {
            if (!isPolicyKey(key)) {
                clients.add(key);
            }
        }
        return clients;
    }
}
