package dev.ratelimit.http.settings;

/**
 * Text as HTTP answers carry it: a structured-field string for the {@code RateLimit} headers, and
 * the inside of a JSON string for problem bodies and {@code denialBody} placeholders. Kept with the
 * settings because names are quoted once, when a policy is read.
 */
public final class HttpText {
    private HttpText() {
    }

    /** A structured-field string: the draft requires the policy name quoted. */
    public static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** The text as the inside of a JSON string: quotes, backslashes and control characters escaped. */
    public static String jsonContent(String text) {
        StringBuilder out = new StringBuilder(text.length() + 2);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * {@code <name><first><a><second><b>}, e.g. a {@code RateLimit} field {@code "api";r=9;t=60},
     * written once into a builder of its size: every limited answer carries two of these, and '+'
     * (compiled for Java 8) would grow a 16-character builder for each.
     */
    public static String field(String name, String first, long a, String second, long b) {
        return new StringBuilder(name.length() + first.length() + second.length() + 40)
                .append(name).append(first).append(a).append(second).append(b).toString();
    }
}
