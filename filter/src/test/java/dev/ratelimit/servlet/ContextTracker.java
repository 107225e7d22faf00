package dev.ratelimit.servlet;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.lang.ref.WeakReference;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Remembers, weakly, each webapp context started with it and that context's class loader, so a
 * test can tell whether anything still holds a webapp after it was undeployed.
 */
public class ContextTracker implements ServletContextListener {
    static final Queue<WeakReference<Object>> STARTED = new ConcurrentLinkedQueue<>();

    @Override
    public void contextInitialized(ServletContextEvent event) {
        STARTED.add(new WeakReference<>(event.getServletContext()));
        ClassLoader loader = event.getServletContext().getClassLoader();
        if (loader != null && loader != ContextTracker.class.getClassLoader()) {
            // Tomcat gives each webapp a class loader of its own; the embedded Jetty shares the test's.
            STARTED.add(new WeakReference<>(loader));
        }
    }

    @Override
    public void contextDestroyed(ServletContextEvent event) {
        // nothing held
    }
}
