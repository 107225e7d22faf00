package dev.ratelimit.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * What a JFR recording of the server says about where its CPU went: the methods that were on top
 * of the stack most often ({@code jdk.ExecutionSample}, self time), and how many samples the
 * limiter's code ({@code dev.ratelimit.}) was running, Jedis and the JDK under its calls included,
 * by the limiter's method nearest the top. JDK 17's {@code jfr} tool has no {@code view
 * hot-methods}; this is the part of it the benchmark's profile needs.
 *
 * <p>{@code JfrTopFrames <recording.jfr> [<top>]} prints the summary.
 */
final class JfrTopFrames {
    /** The limiter's own packages: a sample with one of them on its stack is the limiter's. */
    static final String LIMITER = "dev.ratelimit.";
    /** How many methods a summary lists. */
    static final int TOP = 8;
    /** Tomcat's filter chain: below the limiter's frames when it runs, above them when the servlet does. */
    static final String CHAIN = "org.apache.catalina.core.ApplicationFilterChain";

    /**
     * One recording's summary.
     *
     * @param samples      execution samples in the recording
     * @param limiter      samples with the limiter's code on the stack
     * @param top          the methods most often on top, most first, as {@code class.method}
     * @param topSamples   each top method's samples, in the same order
     * @param inLimiter    the limiter's methods nearest the top in its samples, most first
     * @param inLimiterSamples each one's samples, in the same order
     */
    record Summary(long samples, long limiter, List<String> top, List<Long> topSamples, List<String> inLimiter,
            List<Long> inLimiterSamples) {
        /** Share of all samples, in percent. */
        double percent(long count) {
            return samples == 0 ? 0 : 100.0 * count / samples;
        }
    }

    private JfrTopFrames() {
    }

    /**
     * Prints a recording's summary.
     *
     * @param args the recording, and how many methods to list (default {@value #TOP})
     * @throws IOException when the recording cannot be read
     */
    public static void main(String[] args) throws IOException {
        Summary summary = read(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : TOP);
        System.out.printf(Locale.ROOT, "%d samples, %.1f %% with the limiter on the stack%n", summary.samples(),
                summary.percent(summary.limiter()));
        for (int i = 0; i < summary.top().size(); i++) {
            System.out.printf(Locale.ROOT, "%5.1f %%  %s%n", summary.percent(summary.topSamples().get(i)),
                    summary.top().get(i));
        }
        System.out.println("the limiter's samples by its method nearest the top:");
        for (int i = 0; i < summary.inLimiter().size(); i++) {
            System.out.printf(Locale.ROOT, "%5.1f %%  %s%n", summary.percent(summary.inLimiterSamples().get(i)),
                    summary.inLimiter().get(i));
        }
    }

    /** Reads a recording: its {@code top} methods by self samples, and the limiter's share. */
    static Summary read(Path recording, int top) throws IOException {
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> nearest = new HashMap<>();
        long samples = 0;
        long limiter = 0;
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                RecordedStackTrace stack = event.getStackTrace();
                if (!event.getEventType().getName().equals("jdk.ExecutionSample") || stack == null
                        || stack.getFrames().isEmpty()) {
                    continue;
                }
                samples++;
                self.merge(name(stack.getFrames().get(0).getMethod()), 1L, Long::sum);
                RecordedMethod own = limiterMethod(stack);
                if (own != null) {
                    limiter++;
                    nearest.merge(name(own), 1L, Long::sum);
                }
            }
        }
        List<String> names = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        most(self, top, names, counts);
        List<String> ownNames = new ArrayList<>();
        List<Long> ownCounts = new ArrayList<>();
        most(nearest, top, ownNames, ownCounts);
        return new Summary(samples, limiter, names, counts, ownNames, ownCounts);
    }

    private static void most(Map<String, Long> counted, int top, List<String> names, List<Long> counts) {
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(counted.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        for (Map.Entry<String, Long> entry : sorted.subList(0, Math.min(top, sorted.size()))) {
            names.add(entry.getKey());
            counts.add(entry.getValue());
        }
    }

    /**
     * The limiter's method nearest the top, when the limiter's code is running; null when the sample
     * is elsewhere. The filter wraps the rest of the chain, so it is under every sample of the
     * servlet too; what it runs itself has its frames above the chain's.
     */
    private static RecordedMethod limiterMethod(RecordedStackTrace stack) {
        List<String> types = new ArrayList<>();
        for (RecordedFrame frame : stack.getFrames()) {
            types.add(frame.getMethod().getType().getName());
        }
        int at = limiterFrame(types);
        return at < 0 ? null : stack.getFrames().get(at).getMethod();
    }

    /** The index of the limiter's frame nearest the top (class names, top first), or -1: see {@link #limiterMethod}. */
    static int limiterFrame(List<String> types) {
        for (int i = 0; i < types.size(); i++) {
            String type = types.get(i);
            if (type.startsWith(CHAIN)) {
                return -1;
            }
            if (type.startsWith(LIMITER) && !type.startsWith("dev.ratelimit.bench.")) {
                return i;
            }
        }
        return -1;
    }

    private static String name(RecordedMethod method) {
        return method.getType().getName() + "." + method.getName();
    }
}
