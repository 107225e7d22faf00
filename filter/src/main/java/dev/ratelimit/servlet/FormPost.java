package dev.ratelimit.servlet;

import dev.ratelimit.internal.http.client.FormFields;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A form post's body, read by the filter before the handler so that {@code param:NAME} finds a
 * field a browser's form posts (a login form's {@code user}), and given back whole to the
 * application by {@link FormPostRequest}. Read once per request, whatever the number of policies:
 * it is kept in a request attribute.
 *
 * <p>Only a {@code POST} of {@code application/x-www-form-urlencoded} with a {@code Content-Length}
 * of at most {@link FormFields#MAX_BODY_BYTES} is read; any other body is left to the application
 * untouched, and its fields are absent parts of the key.
 */
final class FormPost {
    /** The request attribute holding a body read for an earlier policy of the same request. */
    static final String ATTRIBUTE = FormPost.class.getName();

    /** The bytes read: fewer than the declared length when someone read the body before the filter. */
    final byte[] body;
    /** Whether the body was shorter than declared: read before the filter, perhaps as parameters. */
    private final boolean partly;
    /** What the container decodes a body with when neither the request nor the webapp says: see {@link #containerDefault}. */
    final Charset containerDefault;

    private FormPost(byte[] body, boolean partly, Charset containerDefault) {
        this.body = body;
        this.partly = partly;
        this.containerDefault = containerDefault;
    }

    /**
     * The form body of the request, read now, or that an earlier policy read; null when the request
     * is no form post the filter may read.
     */
    static FormPost of(HttpServletRequest request) {
        Object read = request.getAttribute(ATTRIBUTE);
        if (read instanceof FormPost) {
            return (FormPost) read;
        }
        long declared = ContainerApi.contentLength(request);
        if (!FormFields.readable(request.getMethod(), request.getContentType(), declared)) {
            return null;
        }
        ServletInputStream in;
        try {
            in = request.getInputStream();
        } catch (IllegalStateException readerTaken) {
            // A filter before this one took the reader: the body is its, and the container parses it no more.
            return null;
        } catch (IOException unreadable) {
            return null;
        }
        byte[] body = FormFields.read(in, (int) declared);
        FormPost form = new FormPost(body, body.length < declared, containerDefault(request));
        request.setAttribute(ATTRIBUTE, form);
        return form;
    }

    /**
     * The first value of a field, decoded as the request's declared encoding or UTF-8 (what browsers
     * post from a UTF-8 page): it only has to name the same user the same way each time.
     */
    String first(HttpServletRequest request, String name) {
        String value = FormFields.first(body, body.length, name,
                FormFields.charset(request.getCharacterEncoding(), StandardCharsets.UTF_8));
        if (value == null && partly) {
            // Someone read the body before the filter; if it was the container parsing the parameters,
            // they hold the field (and asking again costs nothing); otherwise it has none to give.
            value = request.getParameter(name);
        }
        return value;
    }

    /**
     * Tomcat (and the Servlet spec) decode a form with ISO-8859-1 unless told otherwise; Jetty with
     * UTF-8. The application's parameters must read as they would without the filter.
     */
    private static Charset containerDefault(HttpServletRequest request) {
        String server = request.getServletContext().getServerInfo();
        return server != null && server.toLowerCase(Locale.ROOT).startsWith("jetty") ? StandardCharsets.UTF_8
                : StandardCharsets.ISO_8859_1;
    }
}
