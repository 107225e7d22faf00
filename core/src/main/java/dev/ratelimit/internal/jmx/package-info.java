/** Each policy's counters as a platform MXBean, registered at start and removed at stop. */
package dev.ratelimit.internal.jmx;
