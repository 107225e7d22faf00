package dev.ratelimit.internal.http.settings;

/**
 * Text as the inside of a JSON string, for problem bodies and {@code denialBody} placeholders. Kept
 * with the settings because {@link DenialBody} escapes with it too.
 */
public final class HttpText {
    private HttpText() {
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
}
