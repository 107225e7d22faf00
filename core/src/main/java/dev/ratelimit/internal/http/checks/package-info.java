/**
 * What a policy's own traffic shows about its configuration: requests that share one bucket
 * because their key has no value ({@code SHARED_BUCKET}), and a proxy whose forwarding header is
 * not believed, so that all its clients are one ({@code UNTRUSTED_PROXY}); with {@code maxDelay},
 * requests refused instead of waiting because the container cannot suspend them
 * ({@code NOT_ASYNC_SUPPORTED}, {@code NO_ASYNC_DISPATCHER}). Each finding is logged
 * once at WARN with a stable code and the setting to change, and shown on the status page while
 * it lasts. Not API.
 */
package dev.ratelimit.internal.http.checks;
