package dev.ratelimit.internal.http.answer;

import dev.ratelimit.Decision;
import dev.ratelimit.internal.http.settings.DenialBody;
import dev.ratelimit.internal.http.settings.HeaderMode;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.settings.HttpText;
import dev.ratelimit.internal.support.Durations;
import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * How a policy's {@link Decision}s read over HTTP, the same for the servlet filter and JAX-RS:
 * rate-limit headers on every limited answer, and for a denial the status, {@code Retry-After} and
 * an RFC 9457 {@code application/problem+json} body (or {@code denialBody}); the IETF fields are
 * {@link DraftFields}'. Immutable.
 */
public final class HttpAnswer {
    /** The media type of a denial's body. */
    public static final String PROBLEM_JSON = "application/problem+json";
    /** The IANA problem type of a request over its quota (RFC 9457 registry, httpapi ratelimit draft -11, 5.1). */
    public static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";
    /**
     * The problem type of a refusal by the penalty box (draft -11, 5.3: a pattern of requests the
     * server takes for abuse): the client went over its limit, and is refused for longer than the limit
     * alone would refuse it, until the penalty ends.
     */
    public static final String ABNORMAL_USAGE_DETECTED =
            "https://iana.org/assignments/http-problem-types#abnormal-usage-detected";
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
    private final String windowText;
    private final DraftFields draft;

    public HttpAnswer(HttpPolicy policy) {
        this.policy = policy;
        this.byEntry = policy.requests().dimensions() != null;
        this.windowText = HttpPolicy.windowText(policy.rule());
        this.draft = new DraftFields(policy);
    }

    /**
     * The status of a denial: the policy's {@code statusCode}, or 503 when Redis failed and the failure policy denied.
     * A denial the node made alone ({@code onRedisFailure=local}) is an ordinary one: {@code statusCode}.
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
            headers.add("RateLimit-Policy", draft.policy(decision));
            headers.add("RateLimit", draft.limit(decision));
        }
        if (mode.legacy()) {
            headers.set("X-RateLimit-Limit", Long.toString(decision.limit()));
            headers.set("X-RateLimit-Remaining", Long.toString(decision.remaining()));
            headers.set("X-RateLimit-Reset", Long.toString(decision.resetAfterSeconds()));
        }
    }

    /**
     * The body of a denial: {@code type} ({@link #QUOTA_EXCEEDED}; {@link #ABNORMAL_USAGE_DETECTED} for
     * the penalty box; {@link #TEMPORARY_REDUCED_CAPACITY} when Redis failed), {@code title},
     * {@code status}, {@code detail}, {@code violated-policies} (not for a Redis failure),
     * {@code retryAfter}, {@code policy}.
     */
    public String problemJson(Decision decision) {
        int status = status(decision);
        long retryAfter = decision.retryAfterSeconds();
        boolean failedOpen = failedOpen(decision);
        String detail = failedOpen
                ? "The rate limiter cannot reach Redis and policy '" + policy.policyName()
                        + "' is set to deny when that happens. Try again in " + seconds(retryAfter) + "."
                : "Policy '" + nameFor(decision) + "' allows " + quota(decision)
                        + (decision.local() ? " on this server while the rate limiter cannot reach Redis" : "")
                        + boxing(decision) + ". Try again in " + seconds(retryAfter) + ".";
        String type = failedOpen ? TEMPORARY_REDUCED_CAPACITY
                : decision.penalized() ? ABNORMAL_USAGE_DETECTED : QUOTA_EXCEEDED;
        String violated = failedOpen ? "" : ",\"violated-policies\":[" + json(nameFor(decision)) + "]";
        return "{\"type\":" + json(type) + ",\"title\":" + json(title(status)) + ",\"status\":" + status
                + ",\"detail\":" + json(detail) + violated + ",\"retryAfter\":" + retryAfter
                + ",\"policy\":" + json(policy.policyName()) + "}";
    }

    /**
     * The problem+json body of the 503 a request waiting for its turn ({@code maxDelay}) gets when it
     * will not run after all: the server stops the webapp, or the container would not resume it;
     * {@code why} is a sentence without its full stop. Plain {@code about:blank}: the request was not
     * over any quota. It promises nothing about the turn's permits: they go back when Redis takes
     * them, and stay counted when it cannot be reached, or when turns behind it cannot move.
     */
    public String waitEndedJson(String why, long retryAfterSeconds) {
        return "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,\"detail\":"
                + json(why + " while the request waited for its turn. Try again in " + seconds(retryAfterSeconds) + ".")
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

    /** What the decision's rule allows, for a denial's {@code detail}: a rate, or requests at once. */
    private String quota(Decision decision) {
        return decision.rule().algorithm().holdsLeases() ? decision.limit() + " requests in flight at once"
                : decision.limit() + " requests per " + windowTextFor(decision);
    }

    /** For a refusal by the penalty box, why it lasts longer than the limit's own. */
    private static String boxing(Decision decision) {
        Duration penalty = decision.rule().penalty();
        return decision.penalized() && penalty != null
                ? " and refuses a client that goes over it for " + Durations.format(penalty) : "";
    }

    /** The window as configured, of the rule a decision reports. */
    private String windowTextFor(Decision decision) {
        return byEntry ? Durations.format(decision.rule().window()) : windowText;
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
