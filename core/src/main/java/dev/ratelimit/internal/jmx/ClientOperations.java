package dev.ratelimit.internal.jmx;

import dev.ratelimit.Decision;
import java.util.List;
import java.util.Map;

/**
 * What a limiter's JMX bean can do for one client, by the value the client sends: see its state,
 * forget it. A policy keys the value as it keys requests, and covers its tiers ({@code OneClient}).
 */
public interface ClientOperations {
    /**
     * The state a request of the client would meet now, by limiter name, read without taking anything.
     *
     * @throws IllegalArgumentException when the value names no client, saying why
     */
    Map<String, Decision> peek(String value);

    /**
     * Forgets the client; logged at INFO with {@code origin}, never with the value.
     *
     * @return the names of the limiters that forgot it
     * @throws IllegalArgumentException when the value names no client, saying why
     */
    List<String> reset(String value, String origin);

    /** What {@code peekClient} answers: each limiter's state in words, a degraded one as the failure policy's answer. */
    static String describe(Map<String, Decision> states) {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, Decision> state : states.entrySet()) {
            Decision decision = state.getValue();
            text.append(text.length() == 0 ? "" : "; ").append(state.getKey()).append(": ");
            if (decision.degraded()) {
                // Not the client's state: the failure policy's answer, whatever the client did.
                text.append("Redis cannot be asked, onRedisFailure answers ")
                        .append(decision.allowed() ? "allowed" : "denied");
                continue;
            }
            text.append(decision.allowed() ? "allowed" : decision.penalized() ? "denied: in the penalty box" : "denied")
                    .append(", ")
                    .append(decision.remaining()).append(" of ").append(decision.limit()).append(" left")
                    .append(decision.allowed() ? "" : ", retry in " + decision.retryAfterSeconds() + " s")
                    .append(", reset in ").append(decision.resetAfterSeconds()).append(" s");
        }
        return text.toString();
    }
}
