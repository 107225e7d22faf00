/**
 * The answer over HTTP: an {@link dev.ratelimit.internal.http.answer.Admission} is what the pipeline decided
 * for a request, and {@link dev.ratelimit.internal.http.answer.HttpAnswer} how a decision reads as headers,
 * status and body (problem+json or the configured denial body), the IETF draft's fields by
 * {@link dev.ratelimit.internal.http.answer.DraftFields}. Not API.
 */
package dev.ratelimit.internal.http.answer;
