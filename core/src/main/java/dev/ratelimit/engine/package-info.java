/**
 * The decision engine behind {@code RateLimiter}: {@link dev.ratelimit.engine.DecisionEngine} keeps
 * one limiter's parts and routes each call; {@link dev.ratelimit.engine.DecisionFlow} decides one
 * client (deny cache, rules in force, Redis or the failure policy, accounting),
 * {@link dev.ratelimit.engine.BatchDecisions} many at once, {@link dev.ratelimit.engine.RulesInForce}
 * says which rules apply now (live overrides, adaptive limits), and refunds, leases and the
 * accounting of the last five minutes live here too. Not API.
 */
package dev.ratelimit.engine;
