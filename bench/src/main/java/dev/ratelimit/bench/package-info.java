/**
 * The benchmarks behind bench/BENCHMARKS.md, written beside this module's pom; never deployed.
 * {@link dev.ratelimit.bench.BenchmarkReport} runs them against a Redis of its own
 * ({@code redis-server} on the PATH, else an embedded one; or the server {@code REDIS_URL} names) and
 * writes the file. From the repository root:
 *
 * <pre>
 * mvn -B -pl bench -am -DskipTests package exec:exec                      # everything, about 25 minutes
 * mvn -B -pl bench -am -DskipTests package exec:exec -Dbench.mode=http     # the HTTP part alone, about 13 minutes
 * mvn -B -pl bench -am -DskipTests package exec:exec -Dbench.mode=smoke    # seconds; proves it runs, measures nothing
 * </pre>
 *
 * <p>The full run rewrites the whole file; {@code http} rewrites only its "## HTTP" section (and the
 * notes from {@code bench/NOTES.md} at its end), so that a change to the filter can be measured in
 * ten minutes without rerunning the JMH part.
 *
 * <p>The HTTP part ({@code HttpBench}) runs three kinds of process: one server JVM with an embedded
 * Tomcat and one webapp per row, a load generator in a process of its own, and the benchmark's JVM,
 * which only orchestrates. The generator is {@code wrk} when it is on the PATH (Debian and Ubuntu:
 * {@code apt-get install wrk}; nothing needs installing, it is only preferred), else the module's
 * own NIO generator in a JVM of its own; on a two-core machine both cost 10–13 µs of CPU per
 * request. After the measured rounds every row runs once more under a JFR recording of the server
 * ({@link dev.ratelimit.bench.JfrTopFrames}), whose summary goes to BENCHMARKS-profile.md beside
 * the report. A smoke run (and {@code BenchmarkSmokeIT} in the build) only proves that every row
 * answers: 100 ms per row, every row loaded from one generator JVM, its child JVMs on C1 with the
 * serial collector. System properties, given to Maven as {@code -D…} (the pom forwards them to the
 * benchmark's JVM; empty or absent means the default):
 * <ul>
 *   <li>{@code bench.http.generator}: {@code auto} (default), {@code wrk} or {@code java};</li>
 *   <li>{@code bench.http.firstWarmUp}: each row's load in the warm-up round, seconds (default 5);</li>
 *   <li>{@code bench.http.warmUp}: each row's own warm-up in every round, seconds (default 3);</li>
 *   <li>{@code bench.http.measure}: each row's measured part, seconds (default 5);</li>
 *   <li>{@code bench.http.rounds}: rounds, each row once per round, the median shown (default 3);</li>
 *   <li>{@code bench.http.rows}: with {@code bench.mode=http}, only the rows whose name matches this
 *       regular expression, with their anchors ({@link dev.ratelimit.bench.HttpRows}), written to
 *       bench/target/BENCHMARKS-rows.md; BENCHMARKS.md is left as it is.</li>
 * </ul>
 */
package dev.ratelimit.bench;
