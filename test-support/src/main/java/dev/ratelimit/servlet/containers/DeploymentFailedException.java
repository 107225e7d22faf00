package dev.ratelimit.servlet.containers;

/**
 * The container refused to start a web app. {@link #getMessage()} contains the message of the
 * exception that made it fail (for example the {@code ServletException} thrown by a filter's
 * {@code init()}), and {@link #getCause()} is that exception.
 */
public class DeploymentFailedException extends Exception {

    private static final long serialVersionUID = 1L;

    public DeploymentFailedException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Builds the exception from whatever the container threw or logged: container wrappers
     * (LifecycleException, InvocationTargetException, Jetty's multi-exceptions...) are peeled off
     * so that the cause is the application's own exception.
     */
    static DeploymentFailedException of(String container, String contextPath, Throwable thrown) {
        Throwable reason = unwrap(thrown);
        StringBuilder message = new StringBuilder()
                .append("Web app [").append(contextPath.isEmpty() ? "/" : contextPath)
                .append("] did not start on ").append(container).append(": ")
                .append(reason.getMessage() != null ? reason.getMessage() : reason.getClass().getName());
        int depth = 0;
        for (Throwable c = reason.getCause(); c != null && c != reason && depth < 10; c = c.getCause(), depth++) {
            message.append(" (caused by ").append(c).append(')');
        }
        return new DeploymentFailedException(message.toString(), reason);
    }

    static DeploymentFailedException withoutCause(String container, String contextPath, String why) {
        return new DeploymentFailedException(
                "Web app [" + (contextPath.isEmpty() ? "/" : contextPath) + "] did not start on " + container + ": " + why,
                null);
    }

    private static Throwable unwrap(Throwable t) {
        Throwable current = t;
        for (int i = 0; i < 20; i++) {
            Throwable next = null;
            if (current instanceof java.lang.reflect.InvocationTargetException ite) {
                next = ite.getTargetException();
            } else if (isContainerWrapper(current)) {
                next = current.getCause();
                if (next == null && current.getSuppressed().length > 0) {
                    next = current.getSuppressed()[0];
                }
            }
            if (next == null || next == current) {
                return current;
            }
            current = next;
        }
        return current;
    }

    private static boolean isContainerWrapper(Throwable t) {
        String name = t.getClass().getName();
        return name.startsWith("org.apache.catalina.")
                || name.startsWith("org.apache.tomcat.")
                || name.startsWith("org.eclipse.jetty.")
                || t instanceof java.util.concurrent.ExecutionException;
    }
}
