/**
 * The decision engine behind {@code RateLimiter}: {@link dev.ratelimit.internal.engine.EngineBuilder}
 * assembles one limiter's parts and the chain of stages every decision runs (single or batch),
 * {@link dev.ratelimit.internal.engine.DecisionEngine} routes each call, {@link dev.ratelimit.internal.engine.RulesInForce}
 * says which rules apply now (live overrides, adaptive limits), and refunds, resets, both kinds of
 * lease and the accounting of the last five minutes live here too. Not API.
 */
package dev.ratelimit.internal.engine;
