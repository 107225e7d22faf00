/**
 * The SLF4J binding of the tests that read log lines ({@code org.slf4j.impl} binds it): every logger
 * prints as slf4j-simple does, and a test reads its own loggers' lines through a {@link
 * dev.ratelimit.testing.log.LogRecorder}, never by taking the process's stderr.
 */
package dev.ratelimit.testing.log;
