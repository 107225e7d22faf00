package dev.ratelimit.internal.http.settings;

/**
 * Text put into what the library writes over HTTP (core has no JSON or XML library): problem
 * bodies, {@code denialBody} placeholders, the status page. Kept with the settings because
 * {@link DenialBody} escapes with it too.
 */
public final class HttpText {
    /** What {@link #markup} writes for each of {@code &<>"'}. */
    private static final String[] ENTITIES = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};

    private HttpText() {
    }

    /** The text as the inside of a JSON string: quotes, backslashes and control characters escaped. */
    public static String jsonContent(String text) {
        return json(new StringBuilder(text.length() + 16), text, false).toString();
    }

    /**
     * The text as a JSON string, quoted, or {@code null}; escaped as RFC 8259 asks, and U+2028/U+2029
     * too, which JavaScript before ES2019 reads as line ends. {@code <}, {@code >} and {@code &} are
     * escaped as well, so that no key chosen by a client reads as markup even if someone pastes the
     * JSON into a page.
     */
    public static String jsonQuoted(String text) {
        return text == null ? "null"
                : json(new StringBuilder(text.length() + 16).append('"'), text, true).append('"').toString();
    }

    private static StringBuilder json(StringBuilder out, String text, boolean forPages) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int shortForm = "\"\\\n\r\t".indexOf(c);
            if (shortForm >= 0) {
                out.append('\\').append("\"\\nrt".charAt(shortForm));
            } else if (c < ' ' || forPages && (c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029')) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out;
    }

    /**
     * The text escaped so that it is both HTML and well-formed XML: the five predefined entities
     * only, and characters XML 1.0 cannot carry (control characters, lone surrogates) as U+FFFD.
     * Client keys are chosen by clients, so nothing reaches a page unescaped.
     */
    public static String markup(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int entity = "&<>\"'".indexOf(c);
            if (entity >= 0) {
                out.append(ENTITIES[entity]);
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
            } else if ((c < ' ' && c != '\t' && c != '\n' && c != '\r') || Character.isSurrogate(c)
                    || c == '\uFFFE' || c == '\uFFFF') {
                out.append('\uFFFD');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
