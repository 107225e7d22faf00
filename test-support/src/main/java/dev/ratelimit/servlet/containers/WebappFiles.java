package dev.ratelimit.servlet.containers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** An {@link AppDescriptor}'s files on disk, where a container serves the webapp from. */
final class WebappFiles {
    private WebappFiles() {
    }

    /** Writes the app's {@link AppDescriptor#resources() resources} under {@code root}. */
    static void resources(AppDescriptor app, Path root) {
        app.resources().forEach((path, content) -> write(root.resolve(path.substring(1)), content));
    }

    /** Writes the app's {@link AppDescriptor#webXml() web.xml} (when it has one) and its resources under {@code root}. */
    static void war(AppDescriptor app, Path root) {
        resources(app, root);
        if (app.webXml() != null) {
            write(root.resolve("WEB-INF").resolve("web.xml"), app.webXml());
        }
    }

    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
