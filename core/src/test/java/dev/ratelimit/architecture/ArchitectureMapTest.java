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
    /** In the picture: a name of two humps or more, optionally with a member ({@code RateLimitPipeline.before}). */
    private static final Pattern PICTURED_TYPE = Pattern.compile("\\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*(?:\\.[a-z][A-Za-z]*)?\\b");
    /** In the picture: a package below one of {@link #PICTURE_ROOTS}, written {@code .engine}. */
    private static final Pattern PICTURED_PACKAGE = Pattern.compile("(?m)^\\s+\\.([a-z]+)\\s");
    private static final Path CORE = ROOT.resolve("core/src/main/java");
    private static final List<String> PICTURE_ROOTS = List.of("dev/ratelimit", "dev/ratelimit/http",
            "dev/ratelimit/internal", "dev/ratelimit/internal/http");
    /** Types of the libraries the map mentions, not ours. */
    private static final Set<String> FOREIGN = Set.of("UnifiedJedis", "JavaScript");

    @Test
    void everyClassMemberAndPackageTheMapNamesExists() throws IOException {
        String document = Files.readString(ROOT.resolve("ARCHITECTURE.md"), StandardCharsets.UTF_8);
        Map<String, Path> sources = javaSources();
        List<String> missing = new ArrayList<>();
        // The picture (fenced) names classes and packages without backticks: each is checked too.
        List<String> names = new ArrayList<>();
        Matcher fence = Pattern.compile("```\\n(.*?)```", Pattern.DOTALL).matcher(document);
        while (fence.find()) {
            Matcher word = PICTURED_TYPE.matcher(fence.group(1));
            while (word.find()) {
                names.add(word.group());
            }
            Matcher subPackage = PICTURED_PACKAGE.matcher(fence.group(1));
            while (subPackage.find()) {
                String name = subPackage.group(1);
                if (PICTURE_ROOTS.stream().noneMatch(root -> Files.isDirectory(CORE.resolve(root).resolve(name)))) {
                    missing.add("." + name + " (pictured package)");
                }
            }
        }
        String map = fence.replaceAll("");
        Matcher quoted = Pattern.compile("`([^`]+)`").matcher(map);
        while (quoted.find()) {
            names.add(quoted.group(1));
        }
        int checked = 0;
        for (String name : names) {
            Matcher type = TYPE.matcher(name);
            if (PACKAGE.matcher(name).matches()) {
                checked++;
                if (!Files.isDirectory(CORE.resolve(name.replace('.', '/')))) {
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
