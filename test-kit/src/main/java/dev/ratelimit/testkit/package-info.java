/**
 * The test kit: a Redis in the JVM that runs the limiter's production scripts on a clock the test
 * moves ({@link dev.ratelimit.testkit.TestOnlyRedis}), with a JUnit 5 extension and a JUnit 4 rule
 * that reset it after each test. For tests only; see docs/testing.md.
 */
package dev.ratelimit.testkit;
