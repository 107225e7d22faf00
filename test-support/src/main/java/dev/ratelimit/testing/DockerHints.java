package dev.ratelimit.testing;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;

/**
 * A cheap, silent look for signs of a Docker daemon, done before asking Testcontainers (whose probe
 * costs ~0.4 s and logs an ERROR with a list of failed strategies when there is no Docker).
 * False positives only cost that probe; a false negative can be overridden with DOCKER_HOST or
 * {@code -Dratelimit.test.redis=testcontainers}.
 */
final class DockerHints {

    private DockerHints() {
    }

    /**
     * @return why Docker might be there (e.g. the socket path), or null when there is no sign of it
     */
    static String find(Function<String, String> env, Function<String, String> props) {
        String dockerHost = env.apply("DOCKER_HOST");
        if (dockerHost != null && !dockerHost.isBlank()) {
            return "DOCKER_HOST=" + dockerHost;
        }
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            return "Windows (named pipe)";
        }
        String home = props.apply("user.home");
        if (home != null) {
            Path tcProperties = Path.of(home, ".testcontainers.properties");
            if (Files.isRegularFile(tcProperties)) {
                Properties p = new Properties();
                try (Reader r = Files.newBufferedReader(tcProperties, StandardCharsets.ISO_8859_1)) {
                    p.load(r);
                    for (String key : List.of("docker.host", "tc.host")) {
                        if (p.getProperty(key) != null && !p.getProperty(key).isBlank()) {
                            return key + " in " + tcProperties;
                        }
                    }
                } catch (IOException | RuntimeException ignored) {
                    // unreadable: treat as absent
                }
            }
        }
        for (String socket : socketCandidates(env)) {
            try {
                if (Files.exists(Path.of(socket))) {
                    return socket;
                }
            } catch (RuntimeException ignored) {
                // invalid path
            }
        }
        return null;
    }

    /** Where Docker, rootless Docker, Docker Desktop, Colima, Rancher Desktop and OrbStack put their socket. */
    static List<String> socketCandidates(Function<String, String> env) {
        Set<String> candidates = new LinkedHashSet<>();
        candidates.add("/var/run/docker.sock");
        candidates.add("/run/docker.sock");
        String xdg = env.apply("XDG_RUNTIME_DIR");
        if (xdg != null && !xdg.isBlank()) {
            candidates.add(xdg + "/docker.sock");
            candidates.add(xdg + "/.docker/run/docker.sock");
        }
        String uid = linuxUid();
        if (uid != null) {
            candidates.add("/run/user/" + uid + "/docker.sock");
        }
        String home = System.getProperty("user.home");
        if (home != null && !home.isBlank()) {
            for (String relative : List.of(".docker/run/docker.sock", ".docker/desktop/docker.sock",
                    ".colima/default/docker.sock", ".colima/docker.sock", ".rd/docker.sock",
                    ".orbstack/run/docker.sock")) {
                candidates.add(home + "/" + relative);
            }
        }
        return new ArrayList<>(candidates);
    }

    private static String linuxUid() {
        Path status = Path.of("/proc/self/status");
        try {
            if (!Files.isReadable(status)) {
                return null;
            }
            for (String line : Files.readAllLines(status, StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    String[] parts = line.substring(4).trim().split("\\s+");
                    return parts.length > 0 && !parts[0].isEmpty() ? parts[0] : null;
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux, or not readable
        }
        return null;
    }
}
