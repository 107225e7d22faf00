package dev.ratelimit.internal.http.settings;

import java.util.BitSet;

/**
 * Which response statuses count, for {@code countStatus}: exact codes ({@code 401}) and classes
 * ({@code 4xx}), comma separated, such as {@code 401,403} or {@code 4xx,503}. Immutable.
 */
public final class StatusMatcher {
    private final BitSet statuses;
    private final String text;

    private StatusMatcher(BitSet statuses, String text) {
        this.statuses = statuses;
        this.text = text;
    }

    /**
     * Parses {@code 401,403}, {@code 4xx} or a mix.
     *
     * @throws IllegalArgumentException for an empty list, or a part that is neither a code from 100
     *     to 599 nor a class {@code 1xx} to {@code 5xx}
     */
    public static StatusMatcher parse(String text) {
        BitSet statuses = new BitSet(600);
        StringBuilder normal = new StringBuilder();
        for (String raw : text.split(",", -1)) {
            String part = raw.trim().toLowerCase(java.util.Locale.ROOT);
            if (part.length() == 3 && part.endsWith("xx") && part.charAt(0) >= '1' && part.charAt(0) <= '5') {
                int from = (part.charAt(0) - '0') * 100;
                statuses.set(from, from + 100);
            } else if (part.length() == 3 && part.chars().allMatch(c -> c >= '0' && c <= '9')
                    && Integer.parseInt(part) >= 100 && Integer.parseInt(part) <= 599) {
                statuses.set(Integer.parseInt(part));
            } else {
                throw new IllegalArgumentException("'" + raw.trim() + "' is neither a status from 100 to 599 nor a "
                        + "class from 1xx to 5xx");
            }
            normal.append(normal.length() == 0 ? "" : ",").append(part);
        }
        return new StatusMatcher(statuses, normal.toString());
    }

    /** Whether an answer with this status counts. */
    public boolean matches(int status) {
        return status >= 0 && statuses.get(status);
    }

    @Override
    public String toString() {
        return text;
    }
}
