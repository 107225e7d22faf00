/**
 * The status page of a webapp's rate limits, with no servlet type: {@link dev.ratelimit.http.status.StatusReport}
 * gathers what every running policy knows in this JVM (configuration, live overrides, counts,
 * breaker, Redis latency, the last five minutes) and renders it as one self-contained HTML page or
 * as JSON. The servlet adapters only map it to a URL.
 */
package dev.ratelimit.http.status;
