package dev.ratelimit.testing;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The only class that touches Testcontainers, so that the rest of the package loads without it.
 *
 * <p>The container's port 6379 is bound to a fixed host port (chosen free on this machine) instead of a
 * random one, because Docker may hand out a different random port when a stopped container is started
 * again, and {@link RedisServerExtension#start()} promises the same port. {@link #kill()} /
 * {@link #restart()} kill and start the same container (without persistence, so data is gone).
 */
final class RedisContainerServer implements ServerHandle {

    private static final int REDIS_PORT = 6379;
    private static final long READY_TIMEOUT_MILLIS = 10_000;

    private final GenericContainer<?> container;
    private final String image;
    private final String host;
    private final int port;
    private boolean running = true;

    private RedisContainerServer(GenericContainer<?> container, String image, String host, int port) {
        this.container = container;
        this.image = image;
        this.host = host;
        this.port = port;
    }

    /** Testcontainers' own Docker probe (slow and noisy when there is no Docker: check cheaply first). */
    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    static RedisContainerServer start(String image) {
        int hostPort = FreePorts.pick();
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withExposedPorts(REDIS_PORT)
                .withCommand("redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no")
                .withCreateContainerCmdModifier(cmd -> {
                    HostConfig hostConfig = cmd.getHostConfig();
                    if (hostConfig == null) {
                        hostConfig = HostConfig.newHostConfig();
                        cmd.withHostConfig(hostConfig);
                    }
                    hostConfig.withPortBindings(
                            new PortBinding(Ports.Binding.bindPort(hostPort), ExposedPort.tcp(REDIS_PORT)));
                })
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1))
                .withStartupTimeout(Duration.ofSeconds(120));
        try {
            container.start();
            String host = container.getHost();
            int port = container.getMappedPort(REDIS_PORT);
            RedisContainerServer server = new RedisContainerServer(container, image, host, port);
            server.awaitPing();
            return server;
        } catch (RuntimeException e) {
            String logs = "";
            try {
                logs = container.getLogs();
            } catch (RuntimeException ignored) {
                // container never started
            }
            stopQuietly(container);
            throw new StrategyUnavailable("could not start a " + image + " container: "
                    + Causes.describe(e) + (logs.isBlank() ? "" : "\n  container log:\n" + logs.strip()), e);
        }
    }

    @Override
    public String uri() {
        return "redis://" + host + ":" + port;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public boolean owned() {
        return true;
    }

    @Override
    public String description() {
        String id = container.getContainerId();
        return "container " + (id == null ? "?" : id.substring(0, Math.min(12, id.length()))) + " of " + image;
    }

    @Override
    public synchronized void kill() {
        if (!running) {
            return;
        }
        String id = container.getContainerId();
        container.getDockerClient().killContainerCmd(id).exec();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (isContainerRunning(id)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("container " + id + " still running 10 s after kill");
            }
            sleep(50);
        }
        running = false;
    }

    @Override
    public synchronized void restart() {
        if (running && RedisPing.answers(host, port, 1_000)) {
            return;
        }
        String id = container.getContainerId();
        if (isContainerRunning(id)) {
            container.getDockerClient().killContainerCmd(id).exec();
        }
        container.getDockerClient().startContainerCmd(id).exec();
        running = true;
        awaitPing();
    }

    @Override
    public synchronized void close() {
        stopQuietly(container);
        running = false;
    }

    private boolean isContainerRunning(String id) {
        InspectContainerResponse response = container.getDockerClient().inspectContainerCmd(id).exec();
        return response.getState() != null && Boolean.TRUE.equals(response.getState().getRunning());
    }

    private void awaitPing() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (!RedisPing.answers(host, port, 500)) {
            if (System.nanoTime() > deadline) {
                String logs;
                try {
                    logs = container.getLogs();
                } catch (RuntimeException e) {
                    logs = "(no logs: " + e.getMessage() + ")";
                }
                throw new IllegalStateException("redis container " + description() + " did not answer PING on "
                        + host + ":" + port + " within " + READY_TIMEOUT_MILLIS / 1000 + " s; log:\n" + logs);
            }
            sleep(50);
        }
    }

    private static void stopQuietly(GenericContainer<?> container) {
        try {
            container.stop();
        } catch (RuntimeException e) {
            System.err.println("[redis-test] could not remove container: " + e.getMessage());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
