package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** Deleting the temp dirs the test servers leave behind (their {@code --dir}s and extracted binaries). */
final class TempDirs {

    private TempDirs() {
    }

    /** Deletes {@code root} and everything below it; null or missing: nothing to do. Logs what it cannot delete. */
    static void deleteRecursively(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("[redis-test] could not delete " + root + ": " + e.getMessage());
        }
    }

    /**
     * {@link #deleteRecursively} that also survives a {@link LinkageError}: when a concurrent build rewrites
     * {@code target/test-classes} under a running test JVM, a class needed only for deleting may be gone, and
     * that must not keep the remaining servers of a cluster or sentinel setup from being killed.
     */
    static void deleteQuietly(Path root) {
        try {
            TempDirs.deleteRecursively(root);
        } catch (RuntimeException | LinkageError e) {
            System.err.println("[redis-test] could not delete " + root + ": " + e);
        }
    }
}
