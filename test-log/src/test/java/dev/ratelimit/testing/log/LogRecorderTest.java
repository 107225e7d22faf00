package dev.ratelimit.testing.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** A recorder reads its own loggers' events, from every thread, while it is open. */
class LogRecorderTest {
    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private Logger logger(String name) {
        return new PrintingLogger(name, Level.INFO.toInt(), console::add);
    }

    @Test
    void aRecorderSeesItsPrefixAndTheLoggersBelowItOnly() {
        try (LogRecorder ours = LogRecorder.record("rec.ours")) {
            logger("rec.ours").info("the prefix itself");
            logger("rec.ours.Child").info("a child");
            logger("rec.oursx.Other").info("a longer name, not a child");
            logger("rec.other").info("another logger");

            assertThat(ours.text()).contains("the prefix itself", "a child")
                    .doesNotContain("not a child", "another logger");
            assertThat(ours.text().split(System.lineSeparator())).hasSize(2);
        }
        assertThat(console).as("every event still printed").hasSize(4);
    }

    @Test
    void closingStopsTheRecordingAndKeepsWhatItHas() {
        LogRecorder recorder = LogRecorder.record("rec.closing");
        logger("rec.closing.A").warn("while open");
        recorder.close();
        logger("rec.closing.A").warn("after close");

        assertThat(recorder.text()).contains("while open").doesNotContain("after close");
        assertThat(console).hasSize(2);
    }

    @Test
    void eventsOfOtherThreadsAreRecordedWithTheirThreadsName() throws InterruptedException {
        try (LogRecorder recorder = LogRecorder.record("rec.threads")) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int n = i;
                threads.add(new Thread(() -> {
                    for (int j = 0; j < 50; j++) {
                        logger("rec.threads.T").info("event {} of {}", j, n);
                    }
                }, "worker-" + i));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join();
            }

            String[] lines = recorder.text().split(System.lineSeparator());
            assertThat(lines).hasSize(200).allMatch(line -> line.matches("\\[worker-(\\d)] INFO rec\\.threads\\.T - "
                    + "event \\d+ of \\1"));
        }
    }

    @Test
    void aMutingRecorderKeepsItsEventsOffTheConsoleWhileOpen() {
        try (LogRecorder muted = LogRecorder.mute("rec.muted"); LogRecorder watching = LogRecorder.record("rec")) {
            logger("rec.muted.Model").error("a failure provoked on purpose");
            logger("rec.loud").info("printed");

            assertThat(muted.text()).contains("a failure provoked on purpose").doesNotContain("printed");
            assertThat(watching.text()).as("another recorder still sees it").contains("a failure provoked on purpose",
                    "printed");
        }
        logger("rec.muted.Model").error("after the run");

        assertThat(console).hasSize(2).noneMatch(event -> event.contains("on purpose"));
    }

    @Test
    void slf4jBindsThisBindingAloneAndItsLoggersRecord() throws Exception {
        assertThat(Collections.list(getClass().getClassLoader().getResources("org/slf4j/impl/StaticLoggerBinder.class")))
                .as("one binding on the class path").hasSize(1);
        assertThat(LoggerFactory.getILoggerFactory()).isInstanceOf(PrintingLoggerFactory.class);

        try (LogRecorder recorder = LogRecorder.record("rec.slf4j")) {
            LoggerFactory.getLogger("rec.slf4j.Real").info("through {}", "SLF4J");
            assertThat(recorder.text()).isEqualTo("[" + Thread.currentThread().getName() + "] INFO rec.slf4j.Real - "
                    + "through SLF4J" + System.lineSeparator());
        }
        assertThat(LoggerFactory.getLogger("rec.slf4j.Real")).isSameAs(LoggerFactory.getLogger("rec.slf4j.Real"));
    }
}
