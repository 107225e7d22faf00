/**
 * An HTTP policy's settings: each declared once ({@link dev.ratelimit.internal.http.settings.Settings}),
 * read from their layers with messages naming where a bad value was written
 * ({@link dev.ratelimit.internal.http.settings.PolicyReader}), into one immutable
 * {@link dev.ratelimit.internal.http.settings.HttpPolicy} and its parts: which requests and which client
 * ({@link dev.ratelimit.internal.http.settings.PolicyRequests}), how its limiters are built
 * ({@link dev.ratelimit.internal.http.settings.PolicyLimiters}). Not API.
 */
package dev.ratelimit.internal.http.settings;
