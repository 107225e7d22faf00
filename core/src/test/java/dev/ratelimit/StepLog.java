package dev.ratelimit;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Supplier;

/**
 * The last steps of a {@link GiveBacksModel} run, and the violations its checks found in the current
 * step: the first of them fails the run with those steps ({@code -Dgivebacks.model.log=N} keeps N, 30
 * unless set).
 */
final class StepLog {
    private static final int LOG_STEPS = Integer.getInteger("givebacks.model.log", 30);

    private final Deque<String> lines = new ArrayDeque<>();
    private final List<String> violations = new ArrayList<>();

    void check(boolean holds, Supplier<String> violation) {
        if (!holds) {
            violations.add(violation.get());
        }
    }

    /** Logs a step; fails with {@code what} and the last steps when one of its checks found a violation. */
    void step(String line, Supplier<String> what) {
        lines.addLast(line);
        while (lines.size() > LOG_STEPS) {
            lines.removeFirst();
        }
        if (!violations.isEmpty()) {
            throw new AssertionError(what.get().replace("%s", violations.get(0)) + "\n  last steps:\n    "
                    + String.join("\n    ", lines));
        }
    }
}
