package dev.ratelimit.servlet;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the tests (the filter has no JSON library): objects as maps, arrays as
 * lists, numbers as longs (the status page writes whole numbers only), strings unescaped. It
 * refuses anything malformed, so reading the page also checks that it is JSON.
 */
final class MiniJson {
    private final String text;
    private int at;

    private MiniJson(String text) {
        this.text = text;
    }

    /** A value read as an object. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    /** A value read as an array. */
    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    /** The status page JSON's policy of that name. */
    static Map<String, Object> policy(Map<String, Object> page, String name) {
        for (Object policy : list(page.get("policies"))) {
            if (name.equals(map(policy).get("name"))) {
                return map(policy);
            }
        }
        throw new AssertionError("no policy " + name + " in " + page);
    }

    static Object parse(String text) {
        MiniJson reader = new MiniJson(text);
        Object value = reader.value();
        reader.blanks();
        if (reader.at != text.length()) {
            throw reader.error("trailing text");
        }
        return value;
    }

    private Object value() {
        blanks();
        if (at >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(at);
        switch (c) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return word("true", Boolean.TRUE);
            case 'f':
                return word("false", Boolean.FALSE);
            case 'n':
                return word("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> object = new LinkedHashMap<>();
        at++;
        blanks();
        if (text.charAt(at) == '}') {
            at++;
            return object;
        }
        while (true) {
            blanks();
            String name = string();
            blanks();
            expect(':');
            if (object.put(name, value()) != null) {
                throw error("no duplicate name '" + name + "'");
            }
            blanks();
            if (text.charAt(at) == '}') {
                at++;
                return object;
            }
            expect(',');
        }
    }

    private List<Object> array() {
        List<Object> array = new ArrayList<>();
        at++;
        blanks();
        if (text.charAt(at) == ']') {
            at++;
            return array;
        }
        while (true) {
            array.add(value());
            blanks();
            if (text.charAt(at) == ']') {
                at++;
                return array;
            }
            expect(',');
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < ' ') {
                throw error("no raw control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"': case '\\': case '/':
                    out.append(e);
                    break;
                case 'n':
                    out.append('\n');
                    break;
                case 'r':
                    out.append('\r');
                    break;
                case 't':
                    out.append('\t');
                    break;
                case 'b':
                    out.append('\b');
                    break;
                case 'f':
                    out.append('\f');
                    break;
                case 'u':
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default:
                    throw error("a known escape");
            }
        }
    }

    private Long number() {
        int start = at;
        if (text.charAt(at) == '-') {
            at++;
        }
        while (at < text.length() && Character.isDigit(text.charAt(at))) {
            at++;
        }
        if (start == at) {
            throw error("a value");
        }
        return Long.parseLong(text.substring(start, at));
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error(word);
        }
        at += word.length();
        return value;
    }

    private void expect(char c) {
        if (at >= text.length() || text.charAt(at) != c) {
            throw error("'" + c + "'");
        }
        at++;
    }

    private void blanks() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private IllegalArgumentException error(String expected) {
        return new IllegalArgumentException("expected " + expected + " at " + at + " of: "
                + text.substring(Math.max(0, at - 40), Math.min(text.length(), at + 40)));
    }
}
