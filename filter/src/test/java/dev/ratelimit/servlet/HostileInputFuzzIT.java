package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.PolicyKeys;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Thousands of generated hostile values, sent as raw HTTP/1.1 bytes behind a trusted proxy, through
 * each forwarding header, a key header, a cookie and a query parameter: every answer is the
 * limiter's (200 or 429, never a 500), and no Redis key holds client-chosen text outside a digest.
 */
class HostileInputFuzzIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final AtomicInteger apps = new AtomicInteger();
    private static final int REQUESTS_PER_HEADER_KIND = 1_000;
    /**
     * What a stored client key may be: an address (IPv6 by prefix), a digest or the mark of an absent
     * part, joined with '+'.
     */
    private static final Pattern SAFE_PART = Pattern.compile("[0-9.]+|[0-9a-f:]+/[0-9]{1,3}|#[A-Za-z0-9_-]{43}|%none");
    private static final int MAX_VALUE_LENGTH = 1_800;
    /** RFC 6265 cookie-octets: what every container accepts in a cookie value. */
    private static final Pattern COOKIE_VALUE =
            Pattern.compile("[\\x21\\x23-\\x2B\\x2D-\\x3A\\x3C-\\x5B\\x5D-\\x7E]*");
    private static final String FRAGMENTS = "\"\\,;=:[]_ \t%{}()<>@/?!'`~^|&*+";

    @AfterAll
    static void stop() {
        containers.close();
    }

    @ParameterizedTest(name = "{0}, {1}")
    @EnumSource(Kind.class)
    void everyHostileValueGetsTheLimitersAnswerAndNoKeyHoldsItsText(Kind kind) throws Exception {
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (String header : new String[] {"X-Forwarded-For", "Forwarded"}) {
            String policy = "fuzz" + apps.incrementAndGet();
            URI app = containers.get(kind).deploy(AppDescriptor.builder("/" + policy).filter(policy,
                    RateLimitFilter.class.getName(), FilterParams.of(redis, "limit", "3", "window", "1m",
                            "policyName", policy, "trustedProxies", "127.0.0.1, ::1", "forwardedHeader", header,
                            "key", "ip+header:X-Api-Key+cookie:c+param:p"), "/*").build());
            Random random = new Random(0x5eed_14L + header.hashCode() + kind.ordinal());
            for (int i = 0; i < REQUESTS_PER_HEADER_KIND; i++) {
                String cookie = hostile(random).replace(";", "");
                String forwarded = hostile(random);
                String apiKey = hostile(random);
                String query = hostileBytes(random);
                // Every 50th client comes back until it is over its limit of 3: hostile keys are still limited.
                for (int visit = 0; visit < (i % 50 == 0 ? 5 : 1); visit++) {
                    int status = send(app, header, forwarded, apiKey, cookie, query);
                    if (status == 400 && !COOKIE_VALUE.matcher(cookie).matches()) {
                        // Jetty's session handling refuses a Cookie header outside RFC 6265 before any filter
                        // runs (Tomcat skips such a cookie): the container's answer to a malformed request.
                        continue;
                    }
                    statuses.merge(status, 1, Integer::sum);
                }
            }
        }
        assertThat(statuses.keySet()).as("answers by status: " + statuses).containsOnly(200, 429);
        assertThat(statuses).containsKeys(200, 429);
        assertThat(statuses.values().stream().mapToInt(Integer::intValue).sum()).as("most requests were judged")
                .isGreaterThan(2 * REQUESTS_PER_HEADER_KIND * 9 / 10);
        assertThat(PolicyKeys.without(redis.keys())).isNotEmpty().allSatisfy(key -> {
            String client = key.substring(key.indexOf(":{") + 2, key.length() - 1);
            for (String part : client.split("\\+")) {
                assertThat(part).as("a part of " + key).matches(SAFE_PART);
            }
        });
    }

    /**
     * A header value within HTTP's field grammar (visible ASCII, blanks, obs-text), built to break
     * parsers; the long ones stay under the containers' 8 KB header limit, so every request reaches
     * the filter rather than the container's own 400.
     */
    private static String hostile(Random random) {
        StringBuilder value = new StringBuilder();
        int length = random.nextInt(10) == 0 ? 60 + random.nextInt(60) : random.nextInt(40);
        for (int i = 0; i < length; i++) {
            switch (random.nextInt(6)) {
                case 0: value.append(FRAGMENTS.charAt(random.nextInt(FRAGMENTS.length()))); break;
                case 1: value.append("for="); break;
                case 2: value.append(random.nextInt(256)).append('.').append(random.nextInt(300)); break;
                case 3: value.append("2001:db8::").append(Integer.toHexString(random.nextInt(65_536))); break;
                case 4: value.append((char) (0x80 + random.nextInt(0x80))); break;
                default: value.append((char) ('!' + random.nextInt(94))); break;
            }
        }
        return value.substring(0, Math.min(value.length(), MAX_VALUE_LENGTH)).trim();
    }

    /** Any bytes at all, percent-encoded for the query string: control bytes, NUL, invalid UTF-8. */
    private static String hostileBytes(Random random) {
        StringBuilder encoded = new StringBuilder();
        int length = random.nextInt(30);
        for (int i = 0; i < length; i++) {
            encoded.append('%').append(String.format("%02X", random.nextInt(256)));
        }
        return encoded.toString();
    }

    /** One raw HTTP/1.1 request; returns the status code of the answer. */
    private static int send(URI app, String forwardedHeader, String forwarded, String apiKey, String cookie,
            String param) throws IOException {
        try (Socket socket = new Socket(app.getHost(), app.getPort())) {
            socket.setSoTimeout(10_000);
            String request = "GET " + app.getPath() + "x?p=" + param + " HTTP/1.1\r\n"
                    + "Host: " + app.getHost() + ":" + app.getPort() + "\r\n"
                    + forwardedHeader + ": " + forwarded + "\r\n"
                    + "X-Api-Key: " + apiKey + "\r\n"
                    + "Cookie: c=" + cookie + "\r\n"
                    + "Connection: close\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                    StandardCharsets.ISO_8859_1));
            String statusLine = in.readLine();
            assertThat(statusLine).as("an answer to " + request).isNotNull().startsWith("HTTP/1.1 ");
            return Integer.parseInt(statusLine.substring(9, 12));
        }
    }
}
