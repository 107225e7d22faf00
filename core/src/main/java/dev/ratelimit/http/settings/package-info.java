/**
 * An HTTP policy's settings: each declared once ({@link dev.ratelimit.http.settings.Settings}),
 * read from their layers with messages naming where a bad value was written
 * ({@link dev.ratelimit.http.settings.PolicyReader}), into one immutable
 * {@link dev.ratelimit.http.settings.HttpPolicy} with what it holds (dimensions, header mode, denial
 * body, counted statuses, matched requests, metrics). Not API.
 */
package dev.ratelimit.http.settings;

