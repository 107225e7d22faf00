package dev.ratelimit.http.status;

/**
 * JSON strings written by hand (core has no JSON library): quotes, backslashes and control
 * characters escaped as RFC 8259 asks, and U+2028/U+2029 too, which JavaScript before ES2019 reads
 * as line ends. {@code <}, {@code >} and {@code &} are escaped as well, so that no key chosen by a
 * client reads as markup even if someone pastes the JSON into a page.
 */
final class JsonText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                default:
                    if (c < ' ' || c == '\u2028' || c == '\u2029' || c == '<' || c == '>' || c == '&') {
                        out.append("\\u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF])
                                .append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
                    } else {
                        out.append(c);
                    }
            }
        }
        return out.append('"').toString();
    }
}
