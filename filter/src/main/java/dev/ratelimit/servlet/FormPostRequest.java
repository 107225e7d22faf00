package dev.ratelimit.servlet;

import dev.ratelimit.internal.http.client.FormFields;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request the application gets after the filter read its form body ({@link FormPost}): the body
 * is all there again, through {@link #getInputStream()} or {@link #getReader()}, and the parameters
 * hold its fields, decoded with the encoding the application sets ({@code setCharacterEncoding}
 * before the first parameter is read, as the Servlet spec has it), else the webapp's, else the
 * container's default. Once the filter has read the body the container has no body parameters of
 * its own (it parses only a stream nobody read), so they are parsed here, after the container's
 * query-string parameters, as the spec orders them. As with the container's own request, the body
 * goes to whichever comes first: parameters read before the stream or reader leave it empty, and
 * a stream or reader taken first leaves the parameters with the query string's alone. One
 * difference remains, for bodies no browser sends: bytes the charset cannot decode become U+FFFD,
 * where some containers refuse the request (Tomcat 11 and Jetty 12 answer 400).
 */
final class FormPostRequest extends HttpServletRequestWrapper {
    private final FormPost form;
    /** Set by the application: containers ignore it once the body was read, so it is kept here. */
    private String encoding;
    private Replay stream;
    private BufferedReader reader;
    private Map<String, String[]> parameters;

    FormPostRequest(HttpServletRequest request, FormPost form) {
        super(request);
        this.form = form;
    }

    @Override
    public String getCharacterEncoding() {
        return encoding != null ? encoding : super.getCharacterEncoding();
    }

    @Override
    public void setCharacterEncoding(String name) throws UnsupportedEncodingException {
        if (reader != null || parameters != null) {
            return; // too late, as for the container's own request
        }
        try {
            Charset.forName(name);
        } catch (IllegalArgumentException unknown) {
            throw new UnsupportedEncodingException(name);
        }
        encoding = name;
        super.setCharacterEncoding(name);
    }

    private Charset charset() {
        return FormFields.charset(getCharacterEncoding(), form.containerDefault);
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        if (reader != null) {
            throw new IllegalStateException("getReader() was already called for this request");
        }
        if (stream == null) {
            stream = new Replay(form, super.getInputStream(), parameters != null);
        }
        return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
        if (reader == null) {
            if (stream != null) {
                throw new IllegalStateException("getInputStream() was already called for this request");
            }
            reader = new BufferedReader(new InputStreamReader(new Replay(form, super.getInputStream(), parameters != null),
                    charset()));
        }
        return reader;
    }

    @Override
    public String getParameter(String name) {
        String[] values = parameters().get(name);
        return values == null ? null : values[0];
    }

    @Override
    public String[] getParameterValues(String name) {
        String[] values = parameters().get(name);
        return values == null ? null : values.clone();
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return Collections.enumeration(parameters().keySet());
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        return parameters();
    }

    private synchronized Map<String, String[]> parameters() {
        if (parameters == null) {
            Map<String, List<String>> merged = new LinkedHashMap<>();
            for (Map.Entry<String, String[]> query : super.getParameterMap().entrySet()) {
                List<String> values = new ArrayList<>();
                Collections.addAll(values, query.getValue());
                merged.put(query.getKey(), values);
            }
            if (stream == null && reader == null) {
                for (Map.Entry<String, List<String>> field : FormFields.all(form.body, form.body.length, charset()).entrySet()) {
                    merged.computeIfAbsent(field.getKey(), n -> new ArrayList<>(1)).addAll(field.getValue());
                }
            }
            Map<String, String[]> all = new LinkedHashMap<>();
            for (Map.Entry<String, List<String>> each : merged.entrySet()) {
                all.put(each.getKey(), each.getValue().toArray(new String[0]));
            }
            parameters = Collections.unmodifiableMap(all);
        }
        return parameters;
    }

    /** The bytes the filter read, then whatever the container's stream still holds. */
    private static final class Replay extends ServletInputStream {
        private final FormPost form;
        private final ServletInputStream rest;
        private int position;

        /** @param spent whether the parameters took the bytes read ahead already */
        Replay(FormPost form, ServletInputStream rest, boolean spent) {
            this.form = form;
            this.rest = rest;
            this.position = spent ? form.body.length : 0;
        }

        @Override
        public int read() throws IOException {
            return position < form.body.length ? form.body[position++] & 0xff : rest.read();
        }

        @Override
        public int read(byte[] into, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (position < form.body.length) {
                int n = Math.min(length, form.body.length - position);
                System.arraycopy(form.body, position, into, offset, n);
                position += n;
                return n;
            }
            return rest.read(into, offset, length);
        }

        @Override
        public int available() throws IOException {
            return position < form.body.length ? form.body.length - position : rest.available();
        }

        @Override
        public boolean isFinished() {
            return position >= form.body.length && rest.isFinished();
        }

        @Override
        public boolean isReady() {
            return position < form.body.length || rest.isReady();
        }

        /**
         * The container calls the listener for its own stream, which the filter already read to its end
         * or near: so the bytes read ahead are offered first, before the container says all is read.
         * The listener is made by a method typed {@code ReadListener}: so verifying this class needs
         * no {@code ReadListener}, which Servlet 3.0 (Tomcat 7) lacks; there no application calls this.
         */
        @Override
        public void setReadListener(ReadListener listener) {
            rest.setReadListener(ReadAhead.around(this, listener));
        }
    }

    /** The application's listener, called on the container's stream, with the bytes read ahead offered first. */
    private static final class ReadAhead implements ReadListener {
        private final Replay replay;
        private final ReadListener listener;

        private ReadAhead(Replay replay, ReadListener listener) {
            this.replay = replay;
            this.listener = listener;
        }

        static ReadListener around(Replay replay, ReadListener listener) {
            return new ReadAhead(replay, listener);
        }

        @Override
        public void onDataAvailable() throws IOException {
            listener.onDataAvailable();
        }

        @Override
        public void onAllDataRead() throws IOException {
            if (replay.position < replay.form.body.length) {
                listener.onDataAvailable();
            }
            listener.onAllDataRead();
        }

        @Override
        public void onError(Throwable failure) {
            listener.onError(failure);
        }
    }
}
