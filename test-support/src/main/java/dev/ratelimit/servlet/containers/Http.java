package dev.ratelimit.servlet.containers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/** Real HTTP requests for the tests. */
public final class Http {
    public static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    /** Sends a request; headers as name, value pairs. */
    public static HttpResponse<String> send(String method, URI uri, String... headers) {
        return send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()), headers);
    }

    public static HttpResponse<String> get(URI uri, String... headers) {
        return send("GET", uri, headers);
    }

    /** POSTs {@code form} as {@code application/x-www-form-urlencoded} (already encoded); headers as pairs. */
    public static HttpResponse<String> postForm(URI uri, String form, String... headers) {
        return send(HttpRequest.newBuilder(uri).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)), headers);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request, String... headers) {
        request.timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        try {
            return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * The status of a GET sent from another loopback address ({@code 127.0.0.2}, say: Linux answers
     * all of 127/8), so that a server sees a second client address. HTTP/1.1 by hand, as the JDK's
     * client cannot choose its local address.
     */
    public static int statusFrom(String localAddress, URI uri) {
        return statusFrom(localAddress, uri, null);
    }

    /**
     * The status of a browser's form post ({@code application/x-www-form-urlencoded}, {@code form}
     * already encoded) sent from another loopback address, as {@link #statusFrom(String, URI)} sends a GET.
     */
    public static int statusOfFormPostFrom(String localAddress, URI uri, String form) {
        return statusFrom(localAddress, uri, form);
    }

    private static int statusFrom(String localAddress, URI uri, String form) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 5_000);
            socket.setSoTimeout(10_000);
            byte[] body = form == null ? new byte[0] : form.getBytes(StandardCharsets.US_ASCII);
            String request = (form == null ? "GET " : "POST ") + uri.getRawPath()
                    + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())
                    + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort() + "\r\nConnection: close\r\n"
                    + (form == null ? "" : "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                    + body.length + "\r\n") + "\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().write(body);
            String statusLine = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1)).readLine();
            if (statusLine == null || !statusLine.startsWith("HTTP/1.1 ")) {
                throw new IllegalStateException("no HTTP answer from " + uri + ": " + statusLine);
            }
            return Integer.parseInt(statusLine.substring(9, 12));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends {@code count} GET requests all at once (request {@code i} to {@code target.apply(i)},
     * with the headers) and counts the answers by status, e.g. {@code {200=40, 429=160}}.
     */
    public static Map<Integer, Integer> concurrentStatuses(int count, IntFunction<URI> target, String... headers) {
        List<CompletableFuture<HttpResponse<Void>>> answers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            HttpRequest.Builder request = HttpRequest.newBuilder(target.apply(i)).timeout(Duration.ofSeconds(30));
            for (int h = 0; h < headers.length; h += 2) {
                request.header(headers[h], headers[h + 1]);
            }
            answers.add(CLIENT.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding()));
        }
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (CompletableFuture<HttpResponse<Void>> answer : answers) {
            statuses.merge(answer.join().statusCode(), 1, Integer::sum);
        }
        return statuses;
    }
}
