/**
 * Who the client is: trusted proxies and the forwarding headers they write
 * ({@code Forwarded}, {@code X-Forwarded-For}, parsed by a tokenizer, literals only), IP literals
 * keyed per prefix, address blocks, key specs whose secret parts are digested, tiers, and a user's
 * own {@code KeyResolver} loaded by name. Not API.
 */
package dev.ratelimit.internal.http.client;
