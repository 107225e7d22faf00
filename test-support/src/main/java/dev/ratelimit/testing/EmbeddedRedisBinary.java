package dev.ratelimit.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import redis.embedded.core.ExecutableProvider;

/**
 * The only class that touches embedded-redis, so that the rest of the package loads without it.
 *
 * <p>Only the binary is taken from the jar: embedded-redis' own {@code RedisServer} waits for
 * "Ready to accept connections" on the process's stdout (so {@code --logfile} would hang it), leaves the
 * stdout pipe undrained unless a listener is set, writes its config file into the system temp dir and
 * adds a JVM shutdown hook per start. Running the extracted binary ourselves gives the same process
 * handling as the PATH strategy (log file, same-port restart, one cleanup path).
 */
final class EmbeddedRedisBinary {

    private EmbeddedRedisBinary() {
    }

    /**
     * Copies the redis-server binary for this OS/architecture out of the embedded-redis jar.
     *
     * @param dir where to put it (deleted by the caller)
     * @return the executable
     */
    static Path extractTo(Path dir) throws IOException {
        File file;
        try {
            file = ExecutableProvider.newJarResourceProvider(dir.toFile()).get();
        } catch (RuntimeException e) {
            // e.g. an OS/architecture the jar has no binary for
            throw new IOException("embedded-redis has no binary for " + System.getProperty("os.name") + "/"
                    + System.getProperty("os.arch") + ": " + Causes.describe(e), e);
        }
        Path binary = file.toPath();
        if (!Files.isRegularFile(binary)) {
            throw new IOException("embedded-redis did not extract a binary (expected " + binary + ")");
        }
        if (!Files.isExecutable(binary) && !file.setExecutable(true)) {
            throw new IOException(binary + " is not executable (is the temp dir mounted noexec?)");
        }
        return binary;
    }
}
