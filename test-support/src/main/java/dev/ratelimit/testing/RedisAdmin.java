package dev.ratelimit.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * Small helpers shared by {@link RedisClusterExtension} and {@link RedisSentinelExtension}: short-lived
 * admin connections, INFO parsing, bounded waits and port choice.
 */
final class RedisAdmin {

    static final String HOST = RedisProcessServer.HOST;
    /** How long an admin command may take before the node counts as not answering. */
    private static final int ADMIN_TIMEOUT_MILLIS = 2_000;
    /** redis-server refuses cluster ports above this: the bus port (port + 10000) must fit in 16 bits. */
    static final int MAX_CLUSTER_PORT = 55_535;
    static final int CLUSTER_BUS_OFFSET = 10_000;

    private RedisAdmin() {
    }

    /** How many connections {@code CLIENT LIST} shows with this name ({@code CLIENT SETNAME}). */
    static long connectionsNamed(UnifiedJedis client, String clientName) {
        Object list = client.sendCommand(Protocol.Command.CLIENT, "LIST");
        String marker = " name=" + clientName + " ";
        return new String((byte[]) list, StandardCharsets.UTF_8).lines().filter(line -> line.contains(marker)).count();
    }

    /** A field of {@code INFO commandstats} summed over {@code commands}, e.g. {@code calls} of eval and evalsha. */
    static long commandStat(String commandStats, String field, String... commands) {
        long total = 0;
        for (String line : commandStats.split("\r?\n")) {
            for (String command : commands) {
                if (line.startsWith("cmdstat_" + command + ":")) {
                    for (String pair : line.substring(line.indexOf(':') + 1).split(",")) {
                        if (pair.startsWith(field + "=")) {
                            total += Long.parseLong(pair.substring(field.length() + 1));
                        }
                    }
                }
            }
        }
        return total;
    }

    /** @return {@code "127.0.0.1:port"} */
    static String address(int port) {
        return HOST + ":" + port;
    }

    /**
     * Runs {@code command} on a fresh connection to {@code 127.0.0.1:port} and closes it.
     *
     * @throws RuntimeException whatever Jedis throws (connection refused, timeout, error reply)
     */
    static <T> T call(int port, Function<Jedis, T> command) {
        try (Jedis jedis = new Jedis(HOST, port, ADMIN_TIMEOUT_MILLIS)) {
            return command.apply(jedis);
        }
    }

    /** @return the fields of {@code INFO section} on {@code port}, e.g. {@code role -> master} */
    static Map<String, String> info(int port, String section) {
        return parseInfo(call(port, j -> j.info(section)));
    }

    /** Parses {@code key:value} lines, as answered by INFO and CLUSTER INFO. */
    static Map<String, String> parseInfo(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : text.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    /**
     * Waits until {@code problem} returns null (it returns what is still missing otherwise, and may throw
     * while nodes are not answering), polling every 50 ms.
     *
     * @param what        what is awaited, for the failure message
     * @param timeout     how long to wait at most
     * @param problem     null when the condition holds, else a description of what is missing
     * @param diagnostics appended to the failure message (e.g. log tails)
     * @return how long it took
     * @throws IllegalStateException on timeout, with the last problem and the diagnostics
     */
    static Duration await(String what, Duration timeout, Supplier<String> problem, Supplier<String> diagnostics) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        String last;
        while (true) {
            try {
                last = problem.get();
            } catch (RuntimeException e) {
                last = Causes.describe(e);
            }
            if (last == null) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what
                        + "; still: " + last + "\n" + diagnostics.get());
            }
            sleep(50);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Finds {@code command} on {@code PATH} or fails loudly: these extensions have no fallback.
     *
     * @param env  the environment lookup ({@code System::getenv})
     * @param what what needs it, for the message
     */
    static Path requireOnPath(Function<String, String> env, String command, String what) {
        Path found = StrategyResolver.findOnPath(env.apply("PATH"), command);
        if (found == null) {
            throw new IllegalStateException(what + " needs the " + command + " executable on PATH, but there is"
                    + " none (PATH=" + env.apply("PATH") + "). Install Redis 7 (e.g. apt-get install redis-server,"
                    + " which brings redis-server and redis-cli; brew install redis) and make sure both are on PATH."
                    + " This test does not fall back to Docker or embedded-redis and is never skipped.");
        }
        return found;
    }

    /**
     * A free port for a cluster node: below {@value #MAX_CLUSTER_PORT}, with its bus port (port + 10000) free
     * too, and neither clashing with a port already in {@code reserved} (to which both are added).
     */
    static int clusterPort(Set<Integer> reserved) {
        for (int i = 0; i < 200; i++) {
            int port = FreePorts.pick();
            int bus = port + CLUSTER_BUS_OFFSET;
            if (port >= MAX_CLUSTER_PORT || bus == FreePorts.FORBIDDEN_PORT || reserved.contains(port) || reserved.contains(bus)
                    || !canBind(bus)) {
                continue;
            }
            reserved.add(port);
            reserved.add(bus);
            return port;
        }
        throw new IllegalStateException("cannot find a free port below " + MAX_CLUSTER_PORT
                + " whose cluster bus port (+" + CLUSTER_BUS_OFFSET + ") is free too");
    }

    private static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The log tails of {@code servers}, each under a header, for failure messages. */
    static String logTails(List<RedisProcessServer> servers) {
        StringBuilder sb = new StringBuilder();
        for (RedisProcessServer s : servers) {
            sb.append("--- ").append(s.label()).append(" (").append(address(s.port()))
                    .append(s.isRunning() ? "" : ", not running").append(") ---\n").append(s.logTail());
        }
        return sb.toString();
    }

    /**
     * Kills every server and deletes its dir; a failure with one never keeps the others alive (nor hides the
     * exception that made a start fail). Used on failed starts and in close().
     */
    static void closeAll(List<RedisProcessServer> servers) {
        for (RedisProcessServer s : servers) {
            try {
                s.close();
            } catch (RuntimeException | LinkageError e) {
                System.err.println("[redis-test] could not close " + s.label() + " on port " + s.port() + ": " + e);
            }
        }
    }

    /** Waits for {@code process} with a bound, killing it on timeout. */
    static boolean waitFor(Process process, Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        return false;
    }
}
