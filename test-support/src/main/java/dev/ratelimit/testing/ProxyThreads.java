package dev.ratelimit.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Every thread a {@link FaultProxy} started, ended or not, so that its close can wait for each,
 * including those started while it was closing.
 */
final class ProxyThreads {
    private static final Duration THREAD_END = Duration.ofSeconds(5);

    private final Queue<Thread> threads = new ConcurrentLinkedQueue<>();

    /** Starts a daemon thread, which {@link #endAll} waits for. */
    void start(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    /**
     * Runs {@code closeLinks} and waits for every thread, again until none is left that was not
     * waited for: the accept thread may be starting a link's pumps right now, after the links were
     * closed.
     *
     * @throws IllegalStateException when a thread still runs after 5 s
     */
    void endAll(Runnable closeLinks) {
        long deadline = System.nanoTime() + THREAD_END.toNanos();
        Set<Thread> ended = new HashSet<>();
        while (true) {
            closeLinks.run();
            List<Thread> waiting = new ArrayList<>();
            for (Thread thread : threads) {
                if (!ended.contains(thread)) {
                    waiting.add(thread);
                }
            }
            if (waiting.isEmpty()) {
                return;
            }
            List<Thread> alive = new ArrayList<>();
            for (Thread thread : waiting) {
                try {
                    thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (thread.isAlive()) {
                    alive.add(thread);
                } else {
                    ended.add(thread);
                }
            }
            if (!alive.isEmpty()) {
                throw new IllegalStateException("threads still running after close: " + alive);
            }
        }
    }
}
