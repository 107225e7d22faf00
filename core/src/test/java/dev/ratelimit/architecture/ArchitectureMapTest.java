package dev.ratelimit.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md is the map: every class, member and package it names in backticks must exist, so
 * that a rename or a move that forgets the map fails the build instead of misleading a newcomer.
 */
class ArchitectureMapTest {
    private static final Path ROOT = Path.of("..");
    /** A type, optionally with members or nested types ({@code NodeGateway.evalAll}), or package-relative ({@code internal.DeniedKeys}). */
    private static final Pattern TYPE = Pattern.compile("(?:[a-z]+\\.)*([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)((?:\\.[A-Za-z][A-Za-z0-9]*)*)(?:\\(.*\\))?");
    private static final Pattern PACKAGE = Pattern.compile("dev\\.ratelimit(?:\\.[a-z]+)*");
    private static final Pattern FILE = Pattern.compile("[A-Za-z0-9_./-]+\\.(?:md|lua|java|xml|properties)");
    /** Types of the libraries the map mentions, not ours. */
    private static final Set<String> FOREIGN = Set.of("UnifiedJedis");

    @Test
    void everyClassMemberAndPackageTheMapNamesExists() throws IOException {
        String map = Files.readString(ROOT.resolve("ARCHITECTURE.md"), StandardCharsets.UTF_8);
        Map<String, Path> sources = javaSources();
        List<String> missing = new ArrayList<>();
        int checked = 0;
        Matcher quoted = Pattern.compile("`([^`]+)`").matcher(map);
        while (quoted.find()) {
            String name = quoted.group(1);
            Matcher type = TYPE.matcher(name);
            if (PACKAGE.matcher(name).matches()) {
                checked++;
                if (!Files.isDirectory(ROOT.resolve("core/src/main/java").resolve(name.replace('.', '/')))) {
                    missing.add(name + " (package)");
                }
            } else if (FILE.matcher(name).matches()) {
                continue;
            } else if (type.matches() && !FOREIGN.contains(type.group(1))) {
                checked++;
                Path source = sources.get(type.group(1));
                if (source == null) {
                    missing.add(name + " (no " + type.group(1) + ".java)");
                    continue;
                }
                String text = Files.readString(source, StandardCharsets.UTF_8);
                for (String member : type.group(2).split("\\.")) {
                    if (!member.isEmpty() && !Pattern.compile("\\b" + member + "\\b").matcher(text).find()) {
                        missing.add(name + " (no " + member + " in " + source.getFileName() + ")");
                    }
                }
            }
        }
        assertThat(checked).as("names read from the map").isGreaterThan(100);
        assertThat(missing).as("names in ARCHITECTURE.md that the code does not have").isEmpty();
    }

    /** Every Java source of every module, by simple name. */
    private static Map<String, Path> javaSources() {
        Map<String, Path> sources = new HashMap<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(file -> file.toString().endsWith(".java") && file.toString().contains("/src/")
                    && !file.toString().contains("/target/"))
                    .forEach(file -> sources.putIfAbsent(file.getFileName().toString().replace(".java", ""), file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sources;
    }
}
