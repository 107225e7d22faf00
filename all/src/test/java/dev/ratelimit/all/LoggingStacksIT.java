package dev.ratelimit.all;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.testing.RedisServerExtension;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/logging.md's table, row by row: the jars a row names (copied from Maven Central by the build to
 * target/logging-stacks) beside the library's, in a JVM of its own ({@link LoggingProbe}), as a WAR's
 * WEB-INF/lib holds them. Every stack is configured at once, each to write its own file; the library's
 * start line must be in the file of the stack the row names and in no other. Where the row says
 * nowhere, the line is in no file and SLF4J's NOP warning is on that JVM's standard error, as the page
 * says. Every row runs with the plain jars; the first row of each destination runs with the all-in-one
 * jar too, which holds no SLF4J of its own either.
 */
@Execution(ExecutionMode.CONCURRENT)
class LoggingStacksIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final Path PAGE = Paths.get(System.getProperty("logging.page"));
    private static final String MARKER = "<!-- logging-stacks";
    private static final String NOP_SECTION = "## The library logs nothing";
    private static final Path STACKS = Paths.get(System.getProperty("logging.stacks"));
    private static final Path PLAIN = Paths.get(System.getProperty("logging.library"));
    private static final Path ALL_JAR = Paths.get(System.getProperty("all.jar"));
    /** What the start line is, in every stack's file: logger, level, message. */
    private static final String LINE = "dev.ratelimit.RateLimiter|INFO|Rate limit policy '" + LoggingProbe.POLICY
            + "' is ready for its first requests";
    /** Each run's own keys under the class's prefix, so that every run's one request is admitted. */
    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final Pattern JAR = Pattern.compile("`([\\w.-]+\\.jar)`");

    /** Where a row's lines go, and how that stack is pointed at its own file. */
    enum Stack {
        LOGBACK("logback", "logback.configurationFile", "logback.xml",
                "<configuration><appender name='file' class='ch.qos.logback.core.FileAppender'><file>%s</file>"
                        + "<encoder><pattern>%%logger|%%level|%%msg%%n</pattern></encoder></appender>"
                        + "<root level='INFO'><appender-ref ref='file'/></root></configuration>"),
        LOG4J2("Log4j 2", "log4j2.configurationFile", "log4j2.xml",
                "<Configuration status='WARN'><Appenders><File name='file' fileName='%s'>"
                        + "<PatternLayout pattern='%%c|%%p|%%m%%n'/></File></Appenders>"
                        + "<Loggers><Root level='info'><AppenderRef ref='file'/></Root></Loggers></Configuration>"),
        LOG4J1("Log4j 1", "log4j.configuration", "log4j.properties",
                "log4j.rootLogger=INFO, file\nlog4j.appender.file=org.apache.log4j.FileAppender\n"
                        + "log4j.appender.file.File=%s\nlog4j.appender.file.layout=org.apache.log4j.PatternLayout\n"
                        + "log4j.appender.file.layout.ConversionPattern=%%c|%%p|%%m%%n\n"),
        JUL("`java.util.logging`", "java.util.logging.config.file", "logging.properties",
                "handlers=java.util.logging.FileHandler\n.level=INFO\njava.util.logging.FileHandler.pattern=%s\n"
                        + "java.util.logging.FileHandler.formatter=java.util.logging.SimpleFormatter\n"
                        + "java.util.logging.SimpleFormatter.format=%%3$s|%%4$s|%%5$s%%n\n");

        final String named;
        private final String property;
        private final String configFile;
        private final String config;

        Stack(String named, String property, String configFile, String config) {
            this.named = named;
            this.property = property;
            this.configFile = configFile;
            this.config = config;
        }

        Path log(Path dir) {
            return dir.resolve(name().toLowerCase(Locale.ROOT) + ".log");
        }

        /** The configuration written to {@code dir}, as the system property that points this stack at it. */
        String configure(Path dir) throws IOException {
            Path file = dir.resolve(configFile);
            Files.writeString(file, String.format(config, log(dir)));
            return "-D" + property + "=" + (this == LOG4J1 ? file.toUri().toString() : file.toString());
        }

        static Stack named(String cell) {
            for (Stack stack : values()) {
                if (cell.equals(stack.named)) {
                    return stack;
                }
            }
            assertThat(cell).as("a row's last cell names a stack or says nowhere").isEqualTo("nowhere");
            return null;
        }
    }

    static Stream<Arguments> rows() throws IOException {
        List<String> lines = Files.readAllLines(PAGE, StandardCharsets.UTF_8);
        int at = 0;
        while (at < lines.size() && !lines.get(at).startsWith(MARKER)) {
            at++;
        }
        assertThat(at).as("the table's marker in " + PAGE).isLessThan(lines.size());
        List<Arguments> rows = new ArrayList<>();
        Set<String> destinations = new HashSet<>();
        for (String line : lines.subList(at + 3, lines.size())) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.split("\\|");
            List<String> jars = new ArrayList<>();
            Matcher jar = JAR.matcher(cells[2]);
            while (jar.find()) {
                jars.add(jar.group(1));
            }
            String goesTo = cells[3].trim();
            rows.add(Arguments.of(cells[1].trim(), "plain jars", jars, goesTo));
            if (destinations.add(goesTo)) {
                rows.add(Arguments.of(cells[1].trim(), "all-in-one jar", jars, goesTo));
            }
        }
        assertThat(rows).as("rows of the table in " + PAGE).hasSizeGreaterThan(10);
        return rows.stream();
    }

    /** The page's quote of SLF4J's warning whose lines start with {@code prefix}, one per SLF4J line. */
    private static List<String> quotedWarning(String prefix) throws IOException {
        String page = Files.readString(PAGE, StandardCharsets.UTF_8);
        Matcher block = Pattern.compile("```\n(.*?)```", Pattern.DOTALL)
                .matcher(page.substring(page.indexOf(NOP_SECTION)));
        while (block.find()) {
            if (block.group(1).startsWith(prefix)) {
                return List.of(block.group(1).split("\n"));
            }
        }
        throw new AssertionError(PAGE + " quotes no warning starting '" + prefix + "' under '" + NOP_SECTION + "'");
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("rows")
    void theLibrarysLineReachesTheStackTheRowNames(String logsWith, String library, List<String> jars, String goesTo,
            @TempDir Path dir) throws Exception {
        List<Path> classPath = new ArrayList<>();
        if (library.equals("plain jars")) {
            try (Stream<Path> files = Files.list(PLAIN)) {
                classPath.addAll(files.sorted().collect(Collectors.toList()));
            }
        } else {
            classPath.add(ALL_JAR);
        }
        for (String jar : jars) {
            assertThat(STACKS.resolve(jar)).as("copied by the build (all/pom.xml, logging-stacks)").exists();
            classPath.add(STACKS.resolve(jar));
        }
        classPath.add(Paths.get(LoggingProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI()));

        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        // A JVM that starts on a quarter less CPU (measured: 0.65 s rather than 0.85 s); the probe runs
        // for a second at most, once per row and library.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(classPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
        for (Stack stack : Stack.values()) {
            command.add(stack.configure(dir));
        }
        command.add(LoggingProbe.class.getName());
        command.add(redis.uri());
        command.add(redis.keyPrefix() + RUNS.incrementAndGet() + ":");
        Process probe = new ProcessBuilder(command).redirectOutput(dir.resolve("out.txt").toFile())
                .redirectError(dir.resolve("err.txt").toFile()).start();
        if (!probe.waitFor(60, TimeUnit.SECONDS)) {
            probe.destroyForcibly();
            throw new AssertionError("the probe's JVM did not end in 60 s; standard error:\n"
                    + Files.readString(dir.resolve("err.txt")));
        }
        String out = Files.readString(dir.resolve("out.txt"));
        String err = Files.readString(dir.resolve("err.txt"));
        assertThat(probe.exitValue()).as("exit code; standard error:\n" + err).isZero();
        assertThat(out).as("the limiter decides whatever the logging").contains("allowed=true");

        Stack expected = Stack.named(goesTo);
        List<String> reached = new ArrayList<>();
        for (Stack stack : Stack.values()) {
            if (Files.exists(stack.log(dir)) && Files.readString(stack.log(dir)).contains("dev.ratelimit")) {
                reached.add(stack.named);
            }
        }
        assertThat(reached).as("the stacks the library's lines reached; standard error:\n" + err)
                .isEqualTo(expected == null ? List.of() : List.of(expected.named));
        if (expected != null) {
            assertThat(Files.readString(expected.log(dir))).as(expected.named + "'s file").contains(LINE);
        }
        if (expected == null) {
            List<String> quoted = quotedWarning(jars.contains("slf4j-api-1.7.36.jar") ? "SLF4J: " : "SLF4J(W): ");
            for (String line : quoted) {
                assertThat(err).as("SLF4J's warning on standard error, as the page quotes it")
                        .contains(line.split("…"));
            }
        } else {
            assertThat(err).as("standard error").doesNotContain("NOP");
        }
    }
}
