package dev.ratelimit.internal.http.answer;

import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.support.Durations;
import java.util.HashMap;
import java.util.Map;

/**
 * One policy's IETF httpapi fields, as draft-ietf-httpapi-ratelimit-headers-11 writes them: a
 * {@code RateLimit-Policy} item ({@code "api";q=100;w=60}) and a {@code RateLimit} item
 * ({@code "api";r=42;t=17}) per answer, named by the policy (with {@code limits}, by the governing
 * entry). What every answer repeats (the quoted names, the policy's own {@code RateLimit-Policy}
 * item) is worked out once, when the policy starts. No partition key ({@code pk}): the client keys
 * are addresses, user names or digests of secrets, and none of them may leave the server. Immutable.
 */
final class DraftFields {
    /**
     * The quota unit parameter of an in-flight limit ({@code algorithm=concurrency}); a rate's unit,
     * {@code requests}, is the draft's default and goes unsaid.
     */
    private static final String CONCURRENT_REQUESTS = ";qu=\"concurrent-requests\"";

    /** With {@code limits}, answers name the governing entry: {@code <policy>/<entry>}. */
    private final boolean byEntry;
    private final String quotedPolicyName;
    /** With {@code limits}: each entry's name in answers, quoted once; keyed by rule name. */
    private final Map<String, String> quotedEntryNames = new HashMap<>();
    private final long ownLimit;
    private final long windowSeconds;
    /** The {@code RateLimit-Policy} item of a decision under the policy's own limit: the same on every answer. */
    private final String ownPolicyItem;

    DraftFields(HttpPolicy policy) {
        this.byEntry = policy.requests().dimensions() != null;
        this.quotedPolicyName = quoted(policy.policyName());
        if (byEntry) {
            for (Rule entry : policy.requests().dimensions().rules()) {
                quotedEntryNames.put(entry.name(), quoted(policy.policyName() + "/" + entry.name()));
            }
        }
        Rule rule = policy.rule();
        this.ownLimit = rule.limit();
        // A calendar period's length varies (23 to 25 hours a day): w gets the usual one.
        this.windowSeconds = rule.calendar() != null ? rule.calendar().usual().getSeconds()
                : Durations.ceilSeconds(rule.window());
        this.ownPolicyItem = policyItem(quotedPolicyName, rule, ownLimit, windowSeconds);
    }

    /** A decision's {@code RateLimit-Policy} item: made once for the policy's own limit, else for the decision's. */
    String policy(Decision decision) {
        if (!byEntry && decision.limit() == ownLimit) {
            return ownPolicyItem;
        }
        return policyItem(quotedNameFor(decision), decision.rule(), decision.limit(),
                byEntry ? Durations.ceilSeconds(decision.rule().window()) : windowSeconds);
    }

    /**
     * A decision's {@code RateLimit} item: the available quota {@code r} and the effective window
     * {@code t}, within which the client can use no more than {@code r} (draft -11, 4.1). For an
     * admission {@code t} is the time until the whole quota is back: the quota may free up earlier,
     * but a client that takes {@code r} within {@code t} never goes over it. On a denial {@code t} is the {@code Retry-After} value, which the draft (6) says
     * must not point earlier than the effective window's end. An in-flight limit's admission carries
     * no {@code t}: no time bounds its quota, and its leases' timeout would only hold back a client
     * whose requests end in milliseconds.
     */
    String limit(Decision decision) {
        if (!decision.allowed()) {
            return field(quotedNameFor(decision), ";r=", decision.remaining(), ";t=", decision.retryAfterSeconds());
        }
        if (decision.rule().algorithm().holdsLeases()) {
            return quotedNameFor(decision) + ";r=" + decision.remaining();
        }
        return field(quotedNameFor(decision), ";r=", decision.remaining(), ";t=", decision.resetAfterSeconds());
    }

    private String quotedNameFor(Decision decision) {
        return byEntry ? quotedEntryNames.get(decision.rule().name()) : quotedPolicyName;
    }

    /**
     * A {@code RateLimit-Policy} item: a rate's quota {@code q} per window {@code w} in seconds, or an
     * in-flight limit's {@code q} in concurrent requests without {@code w}: its window is the leases'
     * timeout, no time window of the quota, and {@code q=3;w=120} would read as 3 requests per 2 minutes.
     */
    private static String policyItem(String name, Rule rule, long limit, long windowSeconds) {
        return rule.algorithm().holdsLeases() ? name + ";q=" + limit + CONCURRENT_REQUESTS
                : field(name, ";q=", limit, ";w=", windowSeconds);
    }

    /** A structured-field string (RFC 9651): the draft requires the policy name quoted. */
    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /**
     * {@code <name><first><a><second><b>}, e.g. a {@code RateLimit} item {@code "api";r=9;t=60},
     * written once into a builder of its size: every limited answer carries two of these, and '+'
     * (compiled for Java 8) would grow a 16-character builder for each.
     */
    private static String field(String name, String first, long a, String second, long b) {
        return new StringBuilder(name.length() + first.length() + second.length() + 40)
                .append(name).append(first).append(a).append(second).append(b).toString();
    }
}
