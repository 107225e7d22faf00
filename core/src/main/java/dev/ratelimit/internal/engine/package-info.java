/**
 * The decision engine behind {@code RateLimiter}: {@link dev.ratelimit.internal.engine.EngineBuilder}
 * checks one limiter's settings, {@link dev.ratelimit.internal.engine.DecisionEngine} makes its parts
 * and the chain of stages every decision runs (single or batch), {@link dev.ratelimit.internal.engine.RulesInForce}
 * says which rules apply now (live overrides, adaptive limits), and refunds, resets, both kinds of
 * lease and the accounting of the last five minutes live here too. Not API.
 */
package dev.ratelimit.internal.engine;
