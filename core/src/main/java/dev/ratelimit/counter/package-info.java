/**
 * Counters from the same engine as the limiter, for rules of an application's own making: a
 * sliding-window event counter and a distinct-item counter, each kept in Redis and exact across
 * nodes, with writes kept through a short outage.
 */
package dev.ratelimit.counter;
