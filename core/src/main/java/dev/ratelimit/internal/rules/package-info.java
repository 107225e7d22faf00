/**
 * What rules mean beyond their values, computed in Java and shared by the API's checks, the HTTP
 * settings and the engine: the calendar periods' bounds, the rules a node applies alone, and what
 * the {@code transaction} transport can decide, and where quota leases and penalty boxes can be kept. Not API.
 */
package dev.ratelimit.internal.rules;
