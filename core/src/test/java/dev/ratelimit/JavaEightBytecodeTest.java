package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The core runs on legacy servers' Java 8: every class it ships must be Java 8 bytecode (class
 * file version 52), whatever JDK builds it. {@code release 8} makes javac check the API too.
 */
class JavaEightBytecodeTest {
    private static final int JAVA_8 = 52;

    @Test
    void everyClassOfTheCoreIsJavaEightBytecode() throws IOException, URISyntaxException {
        Path location = Paths.get(RateLimiter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        // target/classes in the module's own build; the jar when run against the packaged artifact.
        try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location, (ClassLoader) null)) {
            Path classes = jar == null ? location : jar.getPath("/");
            List<Path> files;
            try (Stream<Path> walk = Files.walk(classes)) {
                files = walk.filter(file -> file.toString().endsWith(".class")).collect(Collectors.toList());
            }
            assertThat(files).as("the core's classes, from " + location).hasSizeGreaterThan(30);
            for (Path file : files) {
                assertThat(majorVersion(file)).as(file.toString()).isEqualTo(JAVA_8);
            }
        }
    }

    static int majorVersion(Path classFile) throws IOException {
        try (InputStream in = Files.newInputStream(classFile); DataInputStream data = new DataInputStream(in)) {
            assertThat(data.readInt()).as("class file magic").isEqualTo(0xCAFEBABE);
            data.readUnsignedShort();
            return data.readUnsignedShort();
        }
    }
}
