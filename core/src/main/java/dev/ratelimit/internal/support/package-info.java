/**
 * Small checks and values every layer shares and that know nothing of rate limits: durations,
 * immutable copies, argument errors that keep the argument's name, configuration names, Redis key
 * parts, bucket units, Redis addresses, latency samples, what Redis said about evicting keys and
 * which server (Redis or Valkey) said it. Not API.
 */
package dev.ratelimit.internal.support;
