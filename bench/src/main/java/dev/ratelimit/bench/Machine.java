package dev.ratelimit.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the reports say of the machine a run measured on. */
final class Machine {
    private Machine() {
    }

    /** Cores, CPU model, memory and OS of this machine, in one line. */
    static String describe() {
        String cpu = "?";
        String memory = "?";
        try {
            Matcher model = Pattern.compile("model name\\s*:\\s*(.+)").matcher(Files.readString(Path.of("/proc/cpuinfo")));
            if (model.find()) {
                cpu = model.group(1).trim();
            }
            Matcher total = Pattern.compile("MemTotal:\\s*(\\d+) kB").matcher(Files.readString(Path.of("/proc/meminfo")));
            if (total.find()) {
                memory = Long.parseLong(total.group(1)) / 1024 / 1024 + " GiB";
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: the cores and OS still say something
        }
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + memory + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.version");
    }

    /** The machine's load average over the last minute, NaN where the system does not say. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
