/**
 * A web application's policies: {@link dev.ratelimit.internal.http.webapp.Webapp} (its shared Redis clients,
 * JMX name and {@code ratelimit.*} context-params) and {@link dev.ratelimit.internal.http.webapp.PolicyRuntime}
 * (one policy started, registered and closed). Not API.
 */
package dev.ratelimit.internal.http.webapp;
