package dev.ratelimit.bench;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Which HTTP rows a run loads: all of them, or those whose name matches a pattern (for an A/B of a
 * few rows, long enough to be read, in minutes instead of a full run's quarter of an hour). A row's
 * name here is its clients, a space, and its name in the tables, such as {@code 100 `gcra`, leases};
 * the pattern is found anywhere in it ({@link java.util.regex.Matcher#find}). The anchors (no filter,
 * Tomcat's filter and the floor) always run for each count of clients that has a selected row, as
 * every figure of the tables is read against them.
 */
record HttpRows(Pattern pattern) {
    /** The system property that selects rows; unset or empty for all of them. */
    static final String PROPERTY = "bench.http.rows";
    static final HttpRows ALL = new HttpRows(null);
    private static final Set<String> ANCHORS = Set.of(HttpBench.NO_FILTER, HttpBench.TOMCAT_FILTER, HttpBench.FLOOR);

    /** The rows {@value #PROPERTY} selects, or {@link #ALL}. */
    static HttpRows fromSystemProperties() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return ALL;
        }
        try {
            return new HttpRows(Pattern.compile(value.trim()));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException(PROPERTY + " must be a regular expression, but was '" + value + "': "
                    + e.getDescription(), e);
        }
    }

    boolean all() {
        return pattern == null;
    }

    /** The setups this selection runs, in their order; fails when it runs none. */
    List<HttpBench.Setup> select(List<HttpBench.Setup> setups) {
        if (all()) {
            return setups;
        }
        Set<Integer> clients = setups.stream().filter(this::matches).map(HttpBench.Setup::clients)
                .collect(Collectors.toSet());
        List<HttpBench.Setup> selected = setups.stream()
                .filter(setup -> matches(setup) || clients.contains(setup.clients()) && ANCHORS.contains(setup.what()))
                .toList();
        if (selected.isEmpty()) {
            throw new IllegalArgumentException(PROPERTY + " '" + pattern + "' selects no row; rows are named "
                    + "like '" + HttpBench.BUSY_CLIENTS + " `gcra`, leases'");
        }
        return selected;
    }

    private boolean matches(HttpBench.Setup setup) {
        return pattern.matcher(setup.clients() + " " + setup.what()).find();
    }

    /** How the report names the selection. */
    String describe() {
        return all() ? "all" : "those matching `" + pattern + "`, with their anchors";
    }
}
