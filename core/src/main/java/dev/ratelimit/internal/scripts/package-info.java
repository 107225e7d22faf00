/**
 * One decision, one round trip: the evaluators that turn rules into a script call
 * ({@link dev.ratelimit.internal.scripts.LuaEvaluator}, EVALSHA of the {@code .lua} resources) or, without
 * scripts, a MULTI/EXEC window counter or sliding log ({@link dev.ratelimit.internal.scripts.TransactionEvaluator}),
 * read the reply into a
 * {@code Decision} and give permits back; and {@link dev.ratelimit.internal.scripts.DecisionAccess}, the one
 * door into what a decision holds. Not API.
 */
package dev.ratelimit.internal.scripts;
