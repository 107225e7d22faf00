package dev.ratelimit.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The node processes of a {@link RedisClusterExtension}: six {@code redis-server}s from {@code PATH} in cluster
 * mode, on free ports whose bus ports are free too, joined with {@code redis-cli --cluster create}.
 */
final class ClusterProcesses {

    private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(30);

    private ClusterProcesses() {
    }

    /**
     * Starts the six nodes, creates the cluster and waits until it is healthy (bounded, ~30 s). On failure
     * every started node is killed again.
     *
     * @param env the environment lookup, for {@code PATH}
     * @return the nodes in start order
     * @throws IllegalStateException when redis-server / redis-cli are not on PATH, or the cluster does not
     *                               come up; the message carries the tails of the node logs
     */
    static List<RedisProcessServer> start(Function<String, String> env) {
        Path serverBinary = RedisAdmin.requireOnPath(env, "redis-server", "RedisClusterExtension");
        Path cliBinary = RedisAdmin.requireOnPath(env, "redis-cli", "RedisClusterExtension");
        List<RedisProcessServer> started = new ArrayList<>();
        try {
            Set<Integer> reserved = new HashSet<>();
            for (int i = 1; i <= RedisClusterExtension.NODE_COUNT; i++) {
                started.add(RedisProcessServer.start(serverBinary, null, "cluster node " + i,
                        () -> RedisAdmin.clusterPort(reserved), ClusterProcesses::nodeArguments));
            }
            createCluster(cliBinary, started);
            ClusterTopology topology = new ClusterTopology(started);
            RedisAdmin.await("the new cluster to be ready (3 masters with one linked replica each)",
                    RedisClusterExtension.READY_TIMEOUT, () -> topology.problem(true), topology::logTails);
        } catch (RuntimeException | Error e) {
            RedisAdmin.closeAll(started);
            throw e;
        }
        return List.copyOf(started);
    }

    private static List<String> nodeArguments(int port, Path dir, Path logFile) {
        List<String> args = new ArrayList<>(RedisProcessServer.standardArguments(port, dir, logFile));
        args.addAll(List.of(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes-" + port + ".conf",
                "--cluster-node-timeout", "1000",
                // 7.0 waits 5 s for more replicas before a diskless full sync: no reason to in tests
                "--repl-diskless-sync-delay", "0"));
        return args;
    }

    private static void createCluster(Path cli, List<RedisProcessServer> nodes) {
        List<String> command = new ArrayList<>(List.of(cli.toString(), "--cluster", "create"));
        for (RedisProcessServer node : nodes) {
            command.add(RedisAdmin.address(node.port()));
        }
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Path out = nodes.get(0).dir().resolve("cluster-create.out");
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            p.getOutputStream().close();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cli + ": " + e.getMessage(), e);
        }
        boolean finished = RedisAdmin.waitFor(p, CREATE_TIMEOUT);
        if (!finished || p.exitValue() != 0) {
            String output;
            try {
                output = Files.readString(out, StandardCharsets.UTF_8);
            } catch (IOException e) {
                output = "(cannot read " + out + ": " + e.getMessage() + ")";
            }
            throw new IllegalStateException(String.join(" ", command)
                    + (finished ? " failed with exit code " + p.exitValue() : " did not finish within "
                            + CREATE_TIMEOUT.toSeconds() + " s")
                    + "; its output:\n" + output.strip() + "\n" + RedisAdmin.logTails(nodes));
        }
    }
}
