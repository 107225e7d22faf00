package dev.ratelimit.jaxrs;

import jakarta.servlet.ServletContainerInitializer;
import jakarta.servlet.ServletContext;
import java.util.Set;

/**
 * Registers {@link RedisCleanupListener} and {@link CurrentRequestListener} in every webapp that
 * has this jar, without web.xml.
 */
public class RateLimitServletInitializer implements ServletContainerInitializer {

    @Override
    public void onStartup(Set<Class<?>> classes, ServletContext context) {
        context.addListener(RedisCleanupListener.class);
        context.addListener(CurrentRequestListener.class);
    }
}
