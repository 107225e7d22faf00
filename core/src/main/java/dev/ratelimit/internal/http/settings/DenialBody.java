package dev.ratelimit.internal.http.settings;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A custom denial body ({@code denialBody}, {@code denialContentType}): a webapp resource read once
 * at startup, split there into literal text and the placeholders {@code {policy}}, {@code {limit}},
 * {@code {window}}, {@code {retryAfter}} and {@code {status}}, so a denial only joins parts. Any
 * other brace is text (CSS and JSON templates are full of them). Values are escaped for the media
 * type, because a policy name is configuration text and may hold {@code <}, {@code &} or quotes.
 * Immutable.
 */
public final class DenialBody {
    /** The placeholders, in the order of their codes in {@link #parts}. */
    private static final String[] NAMES = {"{policy}", "{limit}", "{window}", "{retryAfter}", "{status}"};
    private static final Pattern MEDIA_TYPE = Pattern.compile("[\\w.+-]+/[\\w.+-]+(\\s*;\\s*[\\w.+-]+=[\\w.+\"-]+)*");

    /** How values are escaped, from the media type. */
    enum Escaping {
        /** {@code text/html}, {@code *xml}: the five XML entities. */
        MARKUP,
        /** {@code *json}: as inside a JSON string (templates put the placeholder between quotes). */
        JSON,
        /** {@code text/plain} and any other type: as they are. */
        NONE;

        static Escaping of(String mediaType) {
            String type = mediaType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
            if (type.equals("text/html") || type.endsWith("/xml") || type.endsWith("+xml")) {
                return MARKUP;
            }
            return type.endsWith("/json") || type.endsWith("+json") ? JSON : NONE;
        }
    }

    private final String path;
    private final String contentType;
    private final Escaping escaping;
    /** Literal text (a String) or a placeholder (an Integer index into {@link #NAMES}). */
    private final List<Object> parts;

    private DenialBody(String path, String contentType, String template) {
        this.path = path;
        this.contentType = contentType;
        this.escaping = Escaping.of(contentType);
        this.parts = split(template);
    }

    /**
     * {@code denialBody}, read now, with {@code denialContentType} (by default from its extension);
     * null when not set. A missing file fails the start, naming the path.
     */
    static DenialBody configured(PolicyReader in) {
        String path = in.get(Settings.DENIAL_BODY);
        String contentType = in.get(Settings.DENIAL_CONTENT_TYPE);
        if (path == null) {
            if (contentType != null) {
                throw new IllegalArgumentException(in.label(Settings.DENIAL_CONTENT_TYPE) + " applies only with "
                        + Settings.DENIAL_BODY.name() + ", which is not set (denialContentType was '" + contentType
                        + "')");
            }
            return null;
        }
        if (in.resources() == null) {
            throw new IllegalArgumentException(in.label(Settings.DENIAL_BODY) + " names a webapp resource ('" + path
                    + "'), but there is no servlet context to read it from; leave it out or run in a servlet "
                    + "container");
        }
        if (contentType == null) {
            contentType = DenialBody.guessContentType(path);
            if (contentType == null) {
                throw new IllegalArgumentException(in.label(Settings.DENIAL_CONTENT_TYPE) + " is required when "
                        + in.label(Settings.DENIAL_BODY) + " ('" + path + "') does not end in .html, .htm, .json, .xml "
                        + "or .txt: " + Settings.DENIAL_CONTENT_TYPE.expected());
            }
        }
        return DenialBody.read(path, contentType, in.resources().apply(path), in.label(Settings.DENIAL_BODY));
    }

    /**
     * Reads the template as UTF-8.
     *
     * @param resource the webapp resource, or null when the webapp does not have it
     * @throws IllegalArgumentException when it is missing or cannot be read
     */
    static DenialBody read(String path, String contentType, InputStream resource, String label) {
        if (resource == null) {
            throw new IllegalArgumentException(label + " names '" + path + "', which is not in the webapp; add the "
                    + "file (e.g. under /WEB-INF so it is not served itself) or correct the path");
        }
        try (InputStream in = resource) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                bytes.write(buffer, 0, n);
            }
            return new DenialBody(path, contentType, new String(bytes.toByteArray(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalArgumentException(label + " names '" + path + "', which cannot be read: " + e, e);
        }
    }

    /** A path within the webapp, as {@code ServletContext.getResourceAsStream} takes it. */
    static String resourcePath(String text) {
        if (!text.startsWith("/") || text.contains("..") || text.endsWith("/")) {
            throw new IllegalArgumentException("not a resource path");
        }
        return text;
    }

    /** {@code type/subtype}, optionally with parameters such as {@code ;charset=UTF-8}. */
    static String mediaType(String text) {
        if (!MEDIA_TYPE.matcher(text).matches()) {
            throw new IllegalArgumentException("not a media type");
        }
        return text;
    }

    /**
     * The media type from the file's extension ({@code .html}, {@code .htm}, {@code .json},
     * {@code .xml}, {@code .txt}), or null when it tells nothing.
     */
    static String guessContentType(String path) {
        String lower = path.toLowerCase(Locale.ROOT);
        switch (lower.substring(lower.lastIndexOf('.') + 1)) {
            case "html": case "htm": return "text/html";
            case "json": return "application/json";
            case "xml": return "application/xml";
            case "txt": return "text/plain";
            default: return null;
        }
    }

    public String contentType() {
        return contentType;
    }

    /** The body for one denial; the values in {@link #NAMES}' order. */
    public String render(String policy, long limit, String window, long retryAfter, int status) {
        String[] values = {escape(policy), Long.toString(limit), escape(window), Long.toString(retryAfter),
                Integer.toString(status)};
        StringBuilder out = new StringBuilder(256);
        for (Object part : parts) {
            out.append(part instanceof Integer ? values[(Integer) part] : (String) part);
        }
        return out.toString();
    }

    private String escape(String value) {
        switch (escaping) {
            case MARKUP: return HttpText.markup(value);
            case JSON: return HttpText.jsonContent(value);
            default: return value;
        }
    }

    private static List<Object> split(String template) {
        List<Object> parts = new ArrayList<>();
        int literalStart = 0;
        for (int i = template.indexOf('{'); i >= 0; i = template.indexOf('{', i + 1)) {
            for (int code = 0; code < NAMES.length; code++) {
                if (template.startsWith(NAMES[code], i)) {
                    if (i > literalStart) {
                        parts.add(template.substring(literalStart, i));
                    }
                    parts.add(code);
                    literalStart = i + NAMES[code].length();
                    i = literalStart - 1;
                    break;
                }
            }
        }
        if (literalStart < template.length()) {
            parts.add(template.substring(literalStart));
        }
        return parts;
    }

    @Override
    public String toString() {
        return "denialBody " + path + " (" + contentType + ")";
    }
}
