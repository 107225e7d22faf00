package dev.ratelimit.internal.http.answer;

import dev.ratelimit.Decision;
import dev.ratelimit.Rule;
import dev.ratelimit.internal.http.settings.DenialBody;
import dev.ratelimit.internal.http.settings.HeaderMode;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.HttpText;
import dev.ratelimit.internal.support.Durations;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * How a policy's {@link Decision}s read over HTTP, the same for the servlet filter and JAX-RS:
 * rate-limit headers on every limited answer, and for a denial the status, {@code Retry-After} and
 * an RFC 9457 {@code application/problem+json} body (or {@code denialBody}). What every answer
 * repeats (the quoted names, the policy's own {@code RateLimit-Policy} field) is worked out once,
 * when the policy starts. Immutable.
 */
public final class HttpAnswer {
    /** The media type of a denial's body. */
    public static final String PROBLEM_JSON = "application/problem+json";
    /** The IANA problem type of a request over its quota (RFC 9457 registry, httpapi ratelimit draft). */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    /** The IANA problem type of the 503 answered while Redis cannot be asked and the policy denies. */
    public static final String TEMPORARY_REDUCED_CAPACITY =
            "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity";

    /** Where an adapter wants headers written. */
    public interface HeaderSink {
        /** Adds a header value (several policies may each add a {@code RateLimit} field). */
        void add(String name, String value);

        /** Sets a header, replacing any earlier value. */
        void set(String name, String value);

        /** A sink from two methods, e.g. {@code HeaderSink.of(response::addHeader, response::setHeader)}. */
        static HeaderSink of(BiConsumer<String, String> add, BiConsumer<String, String> set) {
            return new HeaderSink() {
                @Override
                public void add(String name, String value) {
                    add.accept(name, value);
                }

                @Override
                public void set(String name, String value) {
                    set.accept(name, value);
                }
            };
        }
    }

    private final HttpPolicy policy;
    /** With {@code limits}, answers name the governing entry: {@code <policy>/<entry>}. */
    private final boolean byEntry;
    private final String quotedPolicyName;
    /** With {@code limits}: each entry's name in answers, quoted once; keyed by rule name. */
    private final Map<String, String> quotedEntryNames = new HashMap<>();
    private final long windowSeconds;
    private final String windowText;
    /** The {@code RateLimit-Policy} field of a decision under the policy's own limit: the same on every answer. */
    private final String policyField;

    public HttpAnswer(HttpPolicy policy) {
        this.policy = policy;
        this.byEntry = policy.requests().dimensions() != null;
        this.quotedPolicyName = quoted(policy.policyName());
        if (byEntry) {
            for (Rule entry : policy.requests().dimensions().rules()) {
                quotedEntryNames.put(entry.name(), quoted(policy.policyName() + "/" + entry.name()));
            }
        }
        Rule rule = policy.rule();
        // A calendar period's length varies (23 to 25 hours a day): the draft's w gets the usual one.
        this.windowSeconds = rule.calendar() != null ? rule.calendar().usual().getSeconds()
                : Durations.ceilSeconds(rule.window());
        this.windowText = HttpPolicy.windowText(rule);
        this.policyField = field(quotedPolicyName, ";q=", rule.limit(), ";w=", windowSeconds);
    }

    /**
     * The status of a denial: the policy's {@code statusCode}, or 503 when Redis failed and the
     * failure policy denied. A denial the node made alone ({@code onRedisFailure=local}) is an
     * ordinary one: {@code statusCode}.
     */
    public int status(Decision decision) {
        return failedOpen(decision) ? 503 : policy.statusCode();
    }

    /** A decision made by {@code allow} or {@code deny} without Redis: it says nothing true about the quota. */
    private static boolean failedOpen(Decision decision) {
        return decision.degraded() && !decision.local();
    }

    /**
     * Writes the rate-limit headers of the policy's {@link HeaderMode} and, for a denial,
     * {@code Retry-After} in whole seconds (at least 1). A degraded decision carries no rate-limit
     * headers: without Redis there is nothing true to say about the quota; a local one
     * ({@code onRedisFailure=local}) carries the node's own (its limit is {@code localLimit}).
     */
    public void writeHeaders(Decision decision, HeaderSink headers) {
        if (!decision.allowed()) {
            headers.set("Retry-After", Long.toString(decision.retryAfterSeconds()));
        }
        if (failedOpen(decision)) {
            return;
        }
        HeaderMode mode = policy.headerMode();
        if (mode.draft()) {
            // On a denial t is the Retry-After value: the draft (-10) says Retry-After must not point earlier.
            long reset = decision.allowed() ? decision.resetAfterSeconds() : decision.retryAfterSeconds();
            headers.add("RateLimit-Policy", policyFieldFor(decision));
            headers.add("RateLimit", field(quotedNameFor(decision), ";r=", decision.remaining(), ";t=", reset));
        }
        if (mode.legacy()) {
            headers.set("X-RateLimit-Limit", Long.toString(decision.limit()));
            headers.set("X-RateLimit-Remaining", Long.toString(decision.remaining()));
            headers.set("X-RateLimit-Reset", Long.toString(decision.resetAfterSeconds()));
        }
    }

    /**
     * The body of a denial: {@code type} ({@link #QUOTA_EXCEEDED}, or {@link #TEMPORARY_REDUCED_CAPACITY}
     * when Redis failed), {@code title}, {@code status}, {@code detail}, {@code violated-policies} (not
     * for a Redis failure), {@code retryAfter}, {@code policy}.
     */
    public String problemJson(Decision decision) {
        int status = status(decision);
        long retryAfter = decision.retryAfterSeconds();
        boolean failedOpen = failedOpen(decision);
        String detail = failedOpen
                ? "The rate limiter cannot reach Redis and policy '" + policy.policyName()
                        + "' is set to deny when that happens. Try again in " + seconds(retryAfter) + "."
                : "Policy '" + nameFor(decision) + "' allows " + decision.limit() + " requests per "
                        + windowTextFor(decision) + (decision.local() ? " on this server while the rate limiter cannot "
                        + "reach Redis" : "") + ". Try again in " + seconds(retryAfter) + ".";
        String type = failedOpen ? TEMPORARY_REDUCED_CAPACITY : QUOTA_EXCEEDED;
        String violated = failedOpen ? "" : ",\"violated-policies\":[" + json(nameFor(decision)) + "]";
        return "{\"type\":" + json(type) + ",\"title\":" + json(title(status)) + ",\"status\":" + status
                + ",\"detail\":" + json(detail) + violated + ",\"retryAfter\":" + retryAfter
                + ",\"policy\":" + json(policy.policyName()) + "}";
    }

    /**
     * The problem+json body of the 503 a request waiting for its turn ({@code maxDelay}) gets when it
     * will not run after all, its permits given back: the server stops the webapp, or the container
     * would not resume it. Plain {@code about:blank}: the request was not over any quota.
     *
     * @param why what happened, a sentence without its full stop
     * @param retryAfterSeconds the {@code Retry-After} sent with it, at least 1
     */
    public String waitEndedJson(String why, long retryAfterSeconds) {
        return "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,\"detail\":"
                + json(why + " while the request waited for its turn; its turn was given back. Try again in "
                        + seconds(retryAfterSeconds) + ".")
                + ",\"retryAfter\":" + retryAfterSeconds + ",\"policy\":" + json(policy.policyName()) + "}";
    }

    /** The media type of a denial's body: {@code denialContentType}, or {@link #PROBLEM_JSON}. */
    public String contentType() {
        DenialBody custom = policy.denialBody();
        return custom == null ? PROBLEM_JSON : custom.contentType();
    }

    /** The body of a denial: the policy's {@code denialBody} with its placeholders filled, or {@link #problemJson}. */
    public String body(Decision decision) {
        DenialBody custom = policy.denialBody();
        if (custom == null) {
            return problemJson(decision);
        }
        return custom.render(nameFor(decision), decision.limit(), windowTextFor(decision),
                decision.retryAfterSeconds(), status(decision));
    }

    HeaderMode headerMode() {
        return policy.headerMode();
    }

    /**
     * The name answers carry for a decision: the policy's, or with {@code limits} the governing
     * entry's as {@code <policy>/<entry>}, e.g. {@code api/user}.
     */
    private String nameFor(Decision decision) {
        return byEntry ? policy.policyName() + "/" + decision.rule().name() : policy.policyName();
    }

    /** {@link #nameFor} as the draft's structured fields carry it. */
    private String quotedNameFor(Decision decision) {
        return byEntry ? quotedEntryNames.get(decision.rule().name()) : quotedPolicyName;
    }

    /** A decision's {@code RateLimit-Policy} field: made once for the policy's own limit, else for the decision's. */
    private String policyFieldFor(Decision decision) {
        return !byEntry && decision.limit() == policy.rule().limit() ? policyField : field(quotedNameFor(decision),
                ";q=", decision.limit(), ";w=", byEntry ? Durations.ceilSeconds(decision.rule().window()) : windowSeconds);
    }

    /** The window as configured, of the rule a decision reports. */
    private String windowTextFor(Decision decision) {
        return byEntry ? Durations.format(decision.rule().window()) : windowText;
    }

    /** A structured-field string: the draft requires the policy name quoted. */
    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /**
     * {@code <name><first><a><second><b>}, e.g. a {@code RateLimit} field {@code "api";r=9;t=60},
     * written once into a builder of its size: every limited answer carries two of these, and '+'
     * (compiled for Java 8) would grow a 16-character builder for each.
     */
    private static String field(String name, String first, long a, String second, long b) {
        return new StringBuilder(name.length() + first.length() + second.length() + 40)
                .append(name).append(first).append(a).append(second).append(b).toString();
    }

    private static String seconds(long seconds) {
        return seconds == 1 ? "1 second" : seconds + " seconds";
    }

    private static String title(int status) {
        switch (status) {
            case 400: return "Bad Request";
            case 401: return "Unauthorized";
            case 403: return "Forbidden";
            case 404: return "Not Found";
            case 409: return "Conflict";
            case 420: return "Enhance Your Calm";
            case 429: return "Too Many Requests";
            case 500: return "Internal Server Error";
            case 502: return "Bad Gateway";
            case 503: return "Service Unavailable";
            case 504: return "Gateway Timeout";
            default: return status < 500 ? "Request Refused" : "Server Error";
        }
    }

    private static String json(String text) {
        return '"' + HttpText.jsonContent(text) + '"';
    }
}
