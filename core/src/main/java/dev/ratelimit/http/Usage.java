package dev.ratelimit.http;

/**
 * How a handler tells a policy with {@code chargeAfter=true} what a request really cost, once it
 * knows (tokens generated, rows exported, bytes streamed): it sets {@link #ATTRIBUTE} to the cost in
 * permits, on the servlet request ({@code request.setAttribute(Usage.ATTRIBUTE, 50)}) or, in JAX-RS,
 * on the request context ({@code requestContext.setProperty(Usage.ATTRIBUTE, 50)}). After the
 * response the policy charges the difference from what it took up front, past the limit too; the
 * client's next request, on any node, sees it. Not set: nothing is charged. See "Charging after the
 * response" in docs/configuration.md for the bounds and what each algorithm does with a debt.
 */
public final class Usage {
    /**
     * The request attribute (servlet) and request property (JAX-RS) holding the request's real cost
     * in permits: a {@link Number} or a decimal {@link String} of a whole number from 0 up. Not a
     * whole number, or negative: nothing is charged (logged once); above the rule's capacity
     * ({@code burst}, else {@code limit}): charged as the capacity (logged once).
     */
    public static final String ATTRIBUTE = "dev.ratelimit.usage";

    private Usage() {
    }
}
