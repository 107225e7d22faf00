package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a {@link RedisProcessServer} writes, in its own dir: the process's stdout and stderr
 * ({@code redis.out}) and the Redis log ({@code redis.log}); and their last lines, for failure messages.
 */
final class ProcessOutput {

    private static final int LOG_TAIL_LINES = 25;

    private final Path dir;

    /** @param dir the server's own temp dir (its {@code --dir}) */
    ProcessOutput(Path dir) {
        this.dir = dir;
    }

    /** @return where the server must log ({@code --logfile}) */
    Path logFile() {
        return dir.resolve("redis.log");
    }

    /** @return where the process's stdout and stderr go */
    Path outFile() {
        return dir.resolve("redis.out");
    }

    /** Deletes what an earlier run of the server wrote, so that {@link #tail()} shows only the next run's. */
    void clear() throws IOException {
        Files.deleteIfExists(logFile());
        Files.deleteIfExists(outFile());
    }

    /** The last lines of the process output and the Redis log, for failure messages. */
    String tail() {
        StringBuilder sb = new StringBuilder();
        for (Path file : List.of(outFile(), logFile())) {
            try {
                if (!Files.exists(file)) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                if (lines.isEmpty()) {
                    continue;
                }
                sb.append("  --- ").append(file.getFileName()).append(" ---\n");
                for (String line : lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size())) {
                    sb.append("  ").append(line).append('\n');
                }
            } catch (IOException | RuntimeException e) {
                sb.append("  (cannot read ").append(file).append(": ").append(e.getMessage()).append(")\n");
            }
        }
        return sb.length() == 0 ? "  (no output)" : sb.toString();
    }
}
