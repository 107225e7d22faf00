/**
 * The implementation: nothing below this package is API. Its types are public only where another
 * of the library's packages or jars must reach them; applications code against
 * {@code dev.ratelimit}, {@code dev.ratelimit.counter} and {@code dev.ratelimit.http}.
 */
package dev.ratelimit.internal;
