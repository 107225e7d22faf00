package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * What the javax WAR ships: the javax jars and Jersey 2 with its javax-namespace API, and no
 * jakarta-namespace API that a legacy container could not use. (WarOnTomcatIT could not tell: its
 * test class path holds these APIs too.)
 */
class JavaxWarContentsIT {
    private static final Path WAR = Path.of(System.getProperty("example.war", "target/missing.war"));

    @Test
    void theWarShipsTheJavaxJarsAndOnlyJavaxNamespaceApis() throws IOException {
        List<String> libs;
        try (ZipFile war = new ZipFile(WAR.toFile())) {
            libs = war.stream().map(entry -> entry.getName()).filter(name -> name.startsWith("WEB-INF/lib/"))
                    .map(name -> name.substring("WEB-INF/lib/".length())).collect(Collectors.toList());
        }
        assertThat(libs).anyMatch(name -> name.startsWith("ratelimit-filter-javax-"))
                .anyMatch(name -> name.startsWith("ratelimit-jaxrs-javax-"))
                .anyMatch(name -> name.startsWith("jersey-server-2."))
                .contains("jakarta.ws.rs-api-2.1.6.jar", "jakarta.annotation-api-1.3.5.jar", "slf4j-api-1.7.36.jar")
                .noneMatch(name -> name.startsWith("ratelimit-filter-0") || name.startsWith("ratelimit-jaxrs-0"))
                .noneMatch(name -> name.matches("jakarta\\.(ws\\.rs|annotation|servlet)-api-[3-9].*"));
    }
}
