package dev.ratelimit.http.status;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One policy in the page's opening table: what an on-call engineer needs to pick the policy that
 * wants a look, from the policy's sums over its limiters (its own and its tiers'). Rows sort worst first.
 */
final class OverviewRow {
    /**
     * Alerts, then warnings, then working policies by the share they deny, then idle ones; by name
     * among equals, so that the order does not flicker between two loads of the page.
     */
    static final Comparator<OverviewRow> WORST_FIRST = Comparator.comparing((OverviewRow row) -> row.policy.verdict.level)
            .reversed()
            .thenComparing(Comparator.comparingDouble(OverviewRow::deniedShare).reversed())
            .thenComparing(row -> row.policy.name);

    final PolicyReport policy;
    final long decisions;

    private OverviewRow(PolicyReport policy) {
        this.policy = policy;
        this.decisions = policy.allowed + policy.denied;
    }

    /** The rows of {@code policies}, worst first. */
    static List<OverviewRow> of(List<PolicyReport> policies) {
        return policies.stream().map(OverviewRow::new).sorted(WORST_FIRST).collect(Collectors.toList());
    }

    double deniedShare() {
        return decisions == 0 ? 0 : (double) policy.denied / decisions;
    }

    /**
     * The id of a policy's section and the fragment that links to it: the name with all but unreserved URI
     * characters percent-encoded, so that the link finds it whatever the name holds.
     */
    static String anchor(String policyName) {
        StringBuilder out = new StringBuilder("policy-");
        for (char c : policyName.toCharArray()) {
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
                    || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4 & 0xF, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            }
        }
        return out.toString();
    }
}
