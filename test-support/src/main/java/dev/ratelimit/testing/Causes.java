package dev.ratelimit.testing;

/** An exception with its causes in one line, for the messages of servers that would not start. */
final class Causes {
    private Causes() {
    }

    /** The exception and up to three causes, each as {@code SimpleName: message}, joined by {@code " <- "}. */
    static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder();
        Throwable t = e;
        for (int depth = 0; t != null && depth < 4; depth++, t = t.getCause()) {
            if (depth > 0) {
                sb.append(" <- ");
            }
            sb.append(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                sb.append(": ").append(t.getMessage());
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return sb.toString();
    }
}
