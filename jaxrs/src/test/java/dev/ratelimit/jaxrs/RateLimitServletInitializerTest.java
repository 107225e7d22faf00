package dev.ratelimit.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.ServletContainerInitializer;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RateLimitServletInitializerTest {

    @Test
    void theJarAnnouncesItsInitializerToServletContainers() {
        assertThat(ServiceLoader.load(ServletContainerInitializer.class).stream()
                .map(provider -> provider.type().getName()).collect(Collectors.toList()))
                .contains(RateLimitServletInitializer.class.getName());
    }
}
