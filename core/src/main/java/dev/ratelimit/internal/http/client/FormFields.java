package dev.ratelimit.internal.http.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fields of {@code application/x-www-form-urlencoded} text: a query string, or a form post's body
 * (what a browser's login form sends). Written for hostile input: no field or value can make it
 * throw; a {@code %} not followed by two hex digits stays as it is, as do bytes the charset cannot
 * decode (as the replacement character); the work is one pass over the bytes.
 */
public final class FormFields {
    /**
     * The largest body read ahead of the handler to find a field: a login form is far smaller, and a
     * larger or chunked body is left alone (the part it would give is then absent).
     */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private static final String FORM_TYPE = "application/x-www-form-urlencoded";

    private FormFields() {
    }

    /** Whether a {@code Content-Type} value is a form post's, parameters such as {@code charset} aside. */
    public static boolean isForm(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim();
        return type.toLowerCase(Locale.ROOT).equals(FORM_TYPE);
    }

    /**
     * Whether a request's body is one to read ahead of the handler for its fields: a {@code POST} of
     * {@code application/x-www-form-urlencoded} whose declared length is 1 to {@link #MAX_BODY_BYTES}.
     * Any other body is left to the application untouched.
     */
    public static boolean readable(String method, String contentType, long declaredLength) {
        return "POST".equals(method) && isForm(contentType) && declaredLength > 0 && declaredLength <= MAX_BODY_BYTES;
    }

    /**
     * Reads a body of {@code length} declared bytes (see {@link #readable}). Returns what was read:
     * fewer bytes when the stream ends first (someone read it before) or fails (the client went
     * away; reading on, the application meets the same failure).
     */
    public static byte[] read(InputStream in, int length) {
        byte[] body = new byte[length];
        int read = 0;
        try {
            for (int n; read < length && (n = in.read(body, read, length - read)) > 0; ) {
                read += n;
            }
        } catch (IOException clientGone) {
            // what was read is kept
        }
        return read == length ? body : Arrays.copyOf(body, read);
    }

    /** A charset by name (a request's encoding, a Content-Type's parameter), or the fallback for none or an unknown one. */
    public static Charset charset(String name, Charset fallback) {
        if (name == null) {
            return fallback;
        }
        try {
            return Charset.forName(name.trim());
        } catch (IllegalArgumentException unknown) {
            return fallback;
        }
    }

    /** The first value of {@code name} in the encoded bytes, decoded with {@code charset}; null when absent. */
    public static String first(byte[] encoded, int length, String name, Charset charset) {
        int start = 0;
        while (start <= length) {
            int end = indexOf(encoded, (byte) '&', start, length);
            int equals = indexOf(encoded, (byte) '=', start, end);
            if (end > start && decode(encoded, start, equals, charset).equals(name)) {
                return equals == end ? "" : decode(encoded, equals + 1, end, charset);
            }
            start = end + 1;
        }
        return null;
    }

    /** The first value of {@code name} in a query string, decoded as UTF-8; null when absent. */
    public static String first(String query, String name) {
        if (query == null) {
            return null;
        }
        byte[] bytes = query.getBytes(StandardCharsets.UTF_8);
        return first(bytes, bytes.length, name, StandardCharsets.UTF_8);
    }

    /** Every field in the encoded bytes, in order, each name's values in order; an empty name is skipped. */
    public static Map<String, List<String>> all(byte[] encoded, int length, Charset charset) {
        Map<String, List<String>> fields = new LinkedHashMap<>();
        int start = 0;
        while (start <= length) {
            int end = indexOf(encoded, (byte) '&', start, length);
            int equals = indexOf(encoded, (byte) '=', start, end);
            if (equals > start) {
                fields.computeIfAbsent(decode(encoded, start, equals, charset), n -> new ArrayList<>(1))
                        .add(equals == end ? "" : decode(encoded, equals + 1, end, charset));
            }
            start = end + 1;
        }
        return fields;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return to;
    }

    /** {@code +} is a space, {@code %XX} a byte; anything else as it is. */
    private static String decode(byte[] encoded, int from, int to, Charset charset) {
        ByteArrayOutputStream out = null;
        for (int i = from; i < to; i++) {
            byte b = encoded[i];
            if (b == '+' || b == '%') {
                out = new ByteArrayOutputStream(to - from);
                out.write(encoded, from, i - from);
                decodeRest(encoded, i, to, out);
                return new String(out.toByteArray(), charset);
            }
        }
        return new String(encoded, from, to - from, charset);
    }

    private static void decodeRest(byte[] encoded, int from, int to, ByteArrayOutputStream out) {
        for (int i = from; i < to; i++) {
            byte b = encoded[i];
            if (b == '+') {
                out.write(' ');
            } else if (b == '%' && hex(encoded, i + 1, to) >= 0 && hex(encoded, i + 2, to) >= 0) {
                out.write(hex(encoded, i + 1, to) * 16 + hex(encoded, i + 2, to));
                i += 2;
            } else {
                out.write(b);
            }
        }
    }

    /** A hex digit's value, or -1 (also past the end, and for any byte that is no ASCII). */
    private static int hex(byte[] bytes, int at, int to) {
        return at >= to ? -1 : IpLiteral.hex((char) (bytes[at] & 0xff));
    }
}
