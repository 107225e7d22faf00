package dev.ratelimit.http.status;

/**
 * Text for the page, escaped so that it is both HTML and well-formed XML: the five predefined
 * entities only, and characters XML 1.0 cannot carry (control characters, lone surrogates) as
 * U+FFFD. Client keys are chosen by clients, so nothing reaches the page unescaped.
 */
final class Markup {
    private Markup() {
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&':
                    out.append("&amp;");
                    break;
                case '<':
                    out.append("&lt;");
                    break;
                case '>':
                    out.append("&gt;");
                    break;
                case '"':
                    out.append("&quot;");
                    break;
                case '\'':
                    out.append("&#39;");
                    break;
                default:
                    if (Character.isHighSurrogate(c) && i + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(i + 1))) {
                        out.append(c).append(text.charAt(++i));
                    } else if ((c < ' ' && c != '\t' && c != '\n' && c != '\r') || Character.isSurrogate(c)
                            || c == '\uFFFE' || c == '\uFFFF') {
                        out.append('\uFFFD');
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.toString();
    }
}
