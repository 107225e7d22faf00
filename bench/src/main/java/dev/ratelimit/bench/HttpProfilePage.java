package dev.ratelimit.bench;

import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * {@value #FILE}, beside BENCHMARKS.md: each HTTP row's profile from the same run, the methods most
 * often on top of the server's samples and the limiter's methods nearest the top of its own.
 */
final class HttpProfilePage {
    /** The file's name. */
    static final String FILE = "BENCHMARKS-profile.md";

    private final HttpBench.Report report;

    HttpProfilePage(HttpBench.Report report) {
        this.report = report;
    }

    /** The whole page. */
    String write() {
        StringBuilder md = new StringBuilder("# Where the server's CPU goes, per HTTP row\n\n");
        md.append("From the HTTP run of ").append(report.date().format(DateTimeFormatter.RFC_1123_DATE_TIME))
                .append(" ([BENCHMARKS.md](BENCHMARKS.md#http), rewritten with it): after the measured rounds, every "
                + "row once more for ").append(HttpBenchMarkdown.seconds(report.measure())).append(" with a JFR recording of the "
                + "server JVM's execution samples (`jdk.ExecutionSample`, every millisecond, with stacks; the server runs "
                + "with `-XX:+DebugNonSafepoints`, so that a sample names the method that ran). A sample "
                + "is *the limiter's* when the limiter's code (`dev.ratelimit`) is the nearest caller above Tomcat's "
                + "filter chain, with what it calls (Jedis, the JDK, Tomcat's header methods); the servlet and Tomcat "
                + "around the filter are not. JFR samples threads running Java code only: the kernel's time "
                + "(sockets, epoll, futexes) is in the server CPU of BENCHMARKS.md but in no sample here. "
                + "Percentages are of the row's samples.\n");
        for (int clients : new int[] {HttpBench.MANY_CLIENTS, HttpBench.BUSY_CLIENTS}) {
            md.append(String.format(Locale.ROOT, "%n## %,d clients%n", clients));
            for (int i = 0; i < report.rows().size(); i++) {
                HttpBench.Row row = report.rows().get(i);
                if (row.clients() != clients) {
                    continue;
                }
                JfrTopFrames.Summary profile = report.profiles().get(i);
                md.append(String.format(Locale.ROOT, "%n### %s%n%n%,d samples, %.0f %% the limiter's.%n%n", row.what(),
                        profile.samples(), profile.percent(profile.limiter())));
                md.append("| on top | method | | the limiter's | its method nearest the top |\n|---:|---|---|---:|---|\n");
                for (int at = 0; at < Math.max(profile.top().size(), profile.inLimiter().size()); at++) {
                    md.append("| ").append(share(profile, profile.top(), profile.topSamples(), at)).append(" | ")
                            .append(name(profile.top(), at)).append(" | | ")
                            .append(share(profile, profile.inLimiter(), profile.inLimiterSamples(), at)).append(" | ")
                            .append(name(profile.inLimiter(), at)).append(" |\n");
                }
            }
        }
        return md.toString();
    }

    private static String share(JfrTopFrames.Summary profile, List<String> names, List<Long> samples, int at) {
        return at < names.size() ? String.format(Locale.ROOT, "%.1f %%", profile.percent(samples.get(at))) : "";
    }

    private static String name(List<String> names, int at) {
        return at < names.size() ? "`" + names.get(at) + "`" : "";
    }
}
