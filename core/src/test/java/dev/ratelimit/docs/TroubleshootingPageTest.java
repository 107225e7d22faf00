package dev.ratelimit.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.support.ClientLibraries;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

/**
 * Every WARN and ERROR line the library can log, and the error that stops a webapp, is explained
 * in docs/troubleshooting.md: the page quotes the longest fixed part of each message as the code
 * writes it, so that a user who searches the page for what the log says finds it.
 */
class TroubleshootingPageTest {
    private static final Path ROOT = Path.of("..");
    private static final List<String> MODULES = List.of("core", "filter", "jaxrs", "micrometer");
    /** A WARN or ERROR call: its format string starts right after the parenthesis. */
    private static final Pattern LOG_CALL = Pattern.compile("\\.(warn|error)\\(\\s*\"");
    /** What stops a webapp, not a log call: the filter's exception and the client clash's message. */
    private static final List<String> STARTUP_FAILURES = List.of("is misconfigured: ", "[REDIS_CLIENT_CLASH] ");

    @Test
    void thePageQuotesEveryWarningAndErrorTheLibraryLogs() throws IOException {
        String page = normalized(Files.readString(ROOT.resolve("docs/troubleshooting.md"), StandardCharsets.UTF_8));
        List<String> missing = new ArrayList<>();
        List<String> quoted = new ArrayList<>();
        for (Message message : messages()) {
            String phrase = message.longestFixedPart();
            (page.contains(normalized(phrase)) ? quoted : missing).add(message.where + ": \"" + phrase + "\"");
        }
        for (String failure : STARTUP_FAILURES) {
            (page.contains(failure.strip()) ? quoted : missing).add("startup failure: \"" + failure.strip() + "\"");
        }
        assertThat(missing).as("log messages docs/troubleshooting.md does not quote (quote each as written)").isEmpty();
        assertThat(quoted).as("messages found in the sources").hasSizeGreaterThan(15);
    }

    /**
     * The page's example of a webapp that does not start is the message the filter writes for that
     * value: the setting's name as the filter says it, the list as the code joins it.
     */
    @Test
    void theMisconfiguredExampleIsWhatTheFilterSaysForItsValue() throws IOException {
        Matcher example = Pattern.compile("(?m)is misconfigured: (init-param '(\\w+)' .*, but was '([^']*)')$")
                .matcher(page());
        assertThat(example.find()).as("docs/troubleshooting.md quotes a misconfigured init-param").isTrue();
        Map<String, String> initParams = new HashMap<>(Map.of("limit", "5", "window", "1m"));
        initParams.put(example.group(2), example.group(3));
        assertThatThrownBy(() -> HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                .parse(initParams)).hasMessage(example.group(1));
    }

    /**
     * The page's REDIS_CLIENT_CLASH line is the one the check writes for the WAR it describes: an old
     * Jedis and commons-pool2 listed before the library's, every reason in the code's order.
     */
    @Test
    void theClientClashExampleIsTheLineTheCheckWritesForItsJars() throws Exception {
        URL[] war = {old("jedis-2.9.0.jar"), old("commons-pool2-2.4.2.jar"), jarOf(UnifiedJedis.class),
            jarOf(GenericObjectPool.class)};
        String line;
        try (URLClassLoader loader = new URLClassLoader(war, ClassLoader.getPlatformClassLoader())) {
            line = ClientLibraries.problem(loader);
        }
        assertThat(page()).contains("RateLimitFilter 'ratelimit' " + line + "\n");
    }

    private static String page() throws IOException {
        return Files.readString(ROOT.resolve("docs/troubleshooting.md"), StandardCharsets.UTF_8);
    }

    /** A jar of an old Redis client, copied by the build (core's pom, old-redis-clients). */
    private static URL old(String jar) throws IOException {
        File file = new File("target/old-redis-clients", jar);
        assertThat(file).as("copied by the build").exists();
        return file.toURI().toURL();
    }

    private static URL jarOf(Class<?> type) throws Exception {
        return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toURI().toURL();
    }

    /** One log call's format string, the literals joined as the compiler joins them. */
    private static final class Message {
        final String where;
        final String format;

        Message(String where, String format) {
            this.where = where;
            this.format = format;
        }

        /** The longest text between placeholders, trimmed of the spaces and punctuation at its ends. */
        String longestFixedPart() {
            return Stream.of(format.split("\\{}")).map(part -> part.replaceAll("^[\\s:;,.']+|[\\s:;,.'(]+$", ""))
                    .max(Comparator.comparingInt(String::length)).orElse("");
        }
    }

    private static List<Message> messages() throws IOException {
        List<Message> messages = new ArrayList<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".java")).collect(Collectors.toList())) {
                    String source = Files.readString(file, StandardCharsets.UTF_8);
                    Matcher call = LOG_CALL.matcher(source);
                    while (call.find()) {
                        String where = file.getFileName() + ":" + (source.substring(0, call.start()).split("\n").length);
                        messages.add(new Message(where, literals(source, call.end() - 1)));
                    }
                }
            }
        }
        return messages;
    }

    /** The string literals joined by {@code +} from {@code at} (an opening quote) to the first argument's end. */
    private static String literals(String source, int at) {
        StringBuilder text = new StringBuilder();
        int i = at;
        while (i < source.length() && source.charAt(i) == '"') {
            int end = i + 1;
            while (source.charAt(end) != '"') {
                end += source.charAt(end) == '\\' ? 2 : 1;
            }
            text.append(source, i + 1, end);
            i = end + 1;
            while (i < source.length() && Character.isWhitespace(source.charAt(i))) {
                i++;
            }
            if (i < source.length() && source.charAt(i) == '+') {
                i++;
                while (Character.isWhitespace(source.charAt(i))) {
                    i++;
                }
            } else {
                break;
            }
        }
        return text.toString().replace("\\\"", "\"");
    }

    private static String normalized(String text) {
        return text.replace("`", "").replaceAll("\\s+", " ");
    }
}
