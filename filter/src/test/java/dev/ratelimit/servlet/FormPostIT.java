package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code param:NAME} reads a form post's body before the application does, and the application must
 * not notice: the same servlet answers the same form posts alike behind the filter and without it,
 * whether it reads parameters (with or without {@code setCharacterEncoding}), the stream, the reader,
 * or reads without blocking.
 */
class FormPostIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final Map<Kind, URI> apps = new HashMap<>();

    private static final String FORM = "application/x-www-form-urlencoded";
    private static final List<String> MODES = List.of("plain", "utf8", "stream", "reader", "async", "paramsfirst");

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static URI app(Kind kind) {
        return apps.computeIfAbsent(kind, k -> {
            Map<String, String> params = new HashMap<>();
            params.put("redisUri", redis.uri());
            params.put("keyPrefix", redis.keyPrefix() + k + ":");
            params.put("limit", "1000");
            params.put("window", "1m");
            params.put("key", "ip+param:user");
            try {
                return containers.get(k).deploy(AppDescriptor.builder("/forms-" + k)
                        .filter("login", RateLimitFilter.class.getName(), params, "/limited/*")
                        .servlet("plain", FormEchoServlet.class.getName(), "/plain/*")
                        .servlet("limited", FormEchoServlet.class.getName(), "/limited/*")
                        .asyncSupported("login", "plain", "limited").build());
            } catch (Exception e) {
                throw new IllegalStateException("cannot deploy the form webapp on " + k, e);
            }
        });
    }

    private static HttpResponse<String> post(URI uri, String contentType, HttpRequest.BodyPublisher body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).POST(body);
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        try {
            return Http.CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What the servlet answers without the filter and behind it, for each way of reading. */
    private static void sameAnswers(Kind kind, String query, String contentType, byte[] body, boolean chunked) {
        URI app = app(kind);
        for (String mode : MODES) {
            List<String> answers = new ArrayList<>();
            for (String path : List.of("plain/", "limited/")) {
                HttpRequest.BodyPublisher publisher = chunked
                        ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                        : HttpRequest.BodyPublishers.ofByteArray(body);
                HttpResponse<String> answer = post(app.resolve(path + "?mode=" + mode + query), contentType, publisher);
                answers.add(answer.statusCode() + " " + answer.body());
                if (path.equals("limited/")) {
                    assertThat(answer.headers().firstValue("RateLimit")).as("limited").isPresent();
                }
            }
            assertThat(answers.get(1)).as("%s, %s: behind the filter as without it", kind, mode)
                    .isEqualTo(answers.get(0)).startsWith("200 ");
        }
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void aBrowsersLoginFormReadsAsWithoutTheFilter(Kind kind) {
        sameAnswers(kind, "", FORM, ascii("user=alice&password=s%C3%A9cret+1"), false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void anEncodingTheApplicationSetsOrDoesNotSetStillDecides(Kind kind) {
        sameAnswers(kind, "", FORM, ascii("user=Zo%C3%AB&x=1"), false);
        sameAnswers(kind, "", FORM + "; charset=UTF-8", ascii("user=Zo%C3%AB"), false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void queryParametersComeFirstThenTheBodys(Kind kind) {
        sameAnswers(kind, "&user=q&x=2", FORM, ascii("user=b&user=c&x=3"), false);
    }

    /** Bodies the filter leaves alone: too large to read ahead, of unknown length, or no form. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void bodiesTheFilterDoesNotReadReachTheApplicationUntouched(Kind kind) {
        StringBuilder large = new StringBuilder("user=alice&pad=");
        while (large.length() <= 70_000) {
            large.append("xxxxxxxxxx");
        }
        sameAnswers(kind, "", FORM, ascii(large.toString()), false);
        sameAnswers(kind, "", FORM, ascii("user=alice&x=1"), true);
        sameAnswers(kind, "", "text/plain", ascii("user=alice"), false);
    }

    /** The filter keys each user apart: the RateLimit header's remaining counts per address and user. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void eachUserOfTheFormIsItsOwnClient(Kind kind) {
        URI limited = app(kind).resolve("limited/?mode=plain");
        String prefix = "\"login\";r=";
        assertThat(post(limited, FORM, HttpRequest.BodyPublishers.ofString("user=carol")).headers()
                .firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith(prefix + "999;"));
        assertThat(post(limited, FORM, HttpRequest.BodyPublishers.ofString("user=carol")).headers()
                .firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith(prefix + "998;"));
        assertThat(post(limited, FORM, HttpRequest.BodyPublishers.ofString("user=dave&password=x")).headers()
                .firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).startsWith(prefix + "999;"));
    }

    /**
     * Hostile bodies: never a 500 from the filter. Where the container refuses a body (bytes that are
     * no UTF-8 where UTF-8 is in force: Tomcat 11 and Jetty 12 answer 400), the fields the filter
     * read ahead are decoded leniently instead, each bad byte as U+FFFD.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void malformedFormsNeverFailTheFilter(Kind kind) {
        for (String body : List.of("user=%zz&a=%", "user=%", "&&&==&", "user=" + "%F0".repeat(300), "=x&user",
                "user=Zo%EB&x=1")) {
            for (String mode : MODES) {
                HttpResponse<String> answer = post(app(kind).resolve("limited/?mode=" + mode), FORM,
                        HttpRequest.BodyPublishers.ofByteArray(ascii(body)));
                assertThat(answer.statusCode()).as("%s, %s: %s", kind, mode, body).isLessThan(500);
            }
        }
    }
}
