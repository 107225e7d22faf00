package dev.ratelimit.servlet;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Says what an application sees of a form post, in the way {@code ?mode=} names: its parameters
 * without or after {@code setCharacterEncoding("UTF-8")}, its body through the stream, the reader
 * or a non-blocking read listener. Tests compare its answers with and without the filter.
 */
public class FormEchoServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String mode = request.getQueryString() == null ? "" : request.getQueryString().replaceAll(".*mode=([a-z0-9]+).*", "$1");
        switch (mode) {
            case "utf8":
                request.setCharacterEncoding("UTF-8");
                String decoded = parameters(request);
                drain(request);
                answer(response, decoded);
                return;
            case "plain":
                String read = parameters(request);
                drain(request);
                answer(response, read);
                return;
            case "stream":
                answer(response, "encoding " + request.getCharacterEncoding() + ", bytes " + hex(readAll(request.getInputStream())));
                return;
            case "paramsfirst":
                String parameters = parameters(request);
                answer(response, parameters + " then bytes " + hex(readAll(request.getInputStream())));
                return;
            case "reader":
                request.setCharacterEncoding("UTF-8");
                answer(response, "reader " + readAll(request.getReader()) + " then " + parameters(request));
                return;
            case "async":
                readAsync(request, response);
                return;
            default:
                response.sendError(400, "mode?");
        }
    }

    /**
     * Reads what the parameters left of the body (all of it, when it is no form): a server that
     * closes a connection with a body unread races the client's next request on it.
     */
    private static void drain(HttpServletRequest request) throws IOException {
        readAll(request.getInputStream());
    }

    private static String parameters(HttpServletRequest request) {
        List<String> names = Collections.list(request.getParameterNames());
        StringBuilder out = new StringBuilder("names " + names + ", user " + request.getParameter("user") + ", values "
                + Arrays.toString(request.getParameterValues("user")) + ", map");
        for (Map.Entry<String, String[]> each : request.getParameterMap().entrySet()) {
            out.append(' ').append(each.getKey()).append('=').append(Arrays.toString(each.getValue()));
        }
        return out.toString();
    }

    private static void readAsync(HttpServletRequest request, HttpServletResponse response) throws IOException {
        AsyncContext async = request.startAsync();
        ServletInputStream in = request.getInputStream();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        in.setReadListener(new ReadListener() {
            @Override
            public void onDataAvailable() throws IOException {
                byte[] buffer = new byte[64];
                while (in.isReady() && !in.isFinished()) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    body.write(buffer, 0, n);
                }
            }

            @Override
            public void onAllDataRead() throws IOException {
                answer((HttpServletResponse) async.getResponse(), "async bytes " + hex(body.toByteArray()));
                async.complete();
            }

            @Override
            public void onError(Throwable failure) {
                async.complete();
            }
        });
    }

    private static void answer(HttpServletResponse response, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        response.setContentType("text/plain;charset=UTF-8");
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    private static String readAll(Reader in) throws IOException {
        StringBuilder out = new StringBuilder();
        char[] buffer = new char[1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.append(buffer, 0, n);
        }
        return out.toString();
    }

    private static String hex(byte[] bytes) {
        List<String> parts = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b & 0xff));
        }
        parts.add(bytes.length + ":" + (bytes.length > 64 ? Integer.toHexString(Arrays.hashCode(bytes)) : out));
        return parts.get(0);
    }
}
