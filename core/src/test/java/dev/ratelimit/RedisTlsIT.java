package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;

/**
 * docs/security.md on TLS with a private CA, proven against a Redis that speaks TLS (switched on at
 * run time, with a certificate for {@code localhost} from a CA of the test's own, asking for client
 * certificates as Redis does by default):
 *
 * <ul>
 *   <li>the library has no trust store setting: in a JVM that was given none, {@code rediss://} fails
 *       the handshake (PKIX), and the policy's start says so;</li>
 *   <li>a JVM started with {@code javax.net.ssl.trustStore} (a copy of the JDK's cacerts with the CA
 *       added) and {@code javax.net.ssl.keyStore} is decided by Redis over TLS; the JVM's default
 *       trust is then that file (the JDK's CAs and the private one), and Tomcat's connectors take the
 *       same file as their trust store for client certificates;</li>
 *   <li>the host in {@code redisUri} is checked against the certificate.</li>
 * </ul>
 */
class RedisTlsIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aPrivateCaWorksThroughTheJvmsTrustStoreAndOnlyThrough(@TempDir Path dir) throws Exception {
        assertThat(redis.owned()).as("TLS is switched on at run time: a server of the test's own").isTrue();
        Process probe = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", // a short JVM: less CPU, as the tests' own
                "-Djavax.net.ssl.trustStore=" + dir.resolve("truststore.p12"),
                "-Djavax.net.ssl.trustStorePassword=" + TlsProbe.PASSWORD,
                "-Djavax.net.ssl.keyStore=" + dir.resolve("ca.p12"),
                "-Djavax.net.ssl.keyStorePassword=" + TlsProbe.PASSWORD,
                "-cp", System.getProperty("java.class.path"), TlsProbe.class.getName(), dir.toString())
                .redirectErrorStream(true).start();
        int tlsPort = freePort();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
                Writer in = new java.io.OutputStreamWriter(probe.getOutputStream(), StandardCharsets.UTF_8);
                Jedis admin = new Jedis(redis.host(), redis.port())) {
            List<String> lines = new ArrayList<>();
            for (String line = out.readLine(); line != null && !line.equals("files ready"); line = out.readLine()) {
                lines.add(line);
            }
            assertThat(probe.isAlive()).as("the probe made its files: " + lines).isTrue();
            admin.sendCommand(Protocol.Command.CONFIG, "SET", "tls-cert-file", dir.resolve("redis.pem").toString(),
                    "tls-key-file", dir.resolve("redis.key").toString(), "tls-ca-cert-file",
                    dir.resolve("ca.pem").toString(), "tls-auth-clients", "yes", "tls-port", Integer.toString(tlsPort));
            try {
                // This JVM was given no trust store: the JDK's CAs, not the private one.
                String log;
                try (CapturedErr err = new CapturedErr()) {
                    PolicyRuntime.start(HttpPolicy.parser("init-param '%s'").defaultPolicyName("tls", "the filter-name")
                            .parse(Map.of("redisUri", "rediss://localhost:" + tlsPort, "limit", "5", "window", "1m",
                                    "jmx", "false", "redisTimeout", "5s")), new RedisStoreRegistry(), "/tls").close();
                    log = err.text();
                }
                assertThat(log).as(log).contains("[REDIS_NOT_READY]: Redis did not answer at start: Redis at rediss://"
                        + "localhost:" + tlsPort + " could not be reached: ", "PKIX path building failed");

                // From code, without touching the JVM: a Jedis client of the caller's, with its own trust.
                try (RedisClient client = RedisClient.builder().hostAndPort("localhost", tlsPort)
                        .clientConfig(DefaultJedisClientConfig.builder().ssl(true)
                                .sslSocketFactory(privateCa(dir).getSocketFactory()).build()).build();
                        RedisStore store = RedisStore.wrap(client)) {
                    RateLimiter limiter = RateLimiter.builder(store).keyPrefix(redis.keyPrefix()).policyName("wrapped")
                            .rule(Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1))).build();
                    assertThat(limiter.tryAcquire("c").remaining()).as("decided by Redis over TLS").isEqualTo(4);
                }

                in.write(tlsPort + "\n");
                in.flush();
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                }
                assertThat(probe.waitFor(30, TimeUnit.SECONDS)).isTrue();
            } finally {
                admin.sendCommand(Protocol.Command.CONFIG, "SET", "tls-port", "0");
            }
            String report = String.join("\n", lines);
            assertThat(lines).as(report)
                    .contains("localhost: decided by Redis, remaining 4",
                            "tomcat truststoreFile: " + dir.resolve("truststore.p12") + ", truststorePassword: "
                                    + TlsProbe.PASSWORD)
                    .anyMatch(line -> line.startsWith("127.0.0.1: failed: ")
                            && line.contains("No subject alternative names matching IP address 127.0.0.1 found"))
                    .anyMatch(line -> {
                        Matcher trust = Pattern.compile("default trust: (\\d+) anchors, the JDK's cacerts (\\d+), "
                                + "private CA true").matcher(line);
                        // The file is the JVM's whole trust: the copy of cacerts, and the CA.
                        return trust.matches() && Integer.parseInt(trust.group(1)) == Integer.parseInt(trust.group(2)) + 1;
                    });
        } finally {
            probe.destroyForcibly();
        }
    }

    /** An SSL context of the caller's own: trusting the test's CA, presenting its certificate as the JVM's key store does. */
    private static SSLContext privateCa(Path dir) throws Exception {
        KeyStore keys = KeyStore.getInstance(dir.resolve("ca.p12").toFile(), TlsProbe.PASSWORD.toCharArray());
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("redis-ca", keys.getCertificate("ca"));
        KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keys, TlsProbe.PASSWORD.toCharArray());
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            int port = socket.getLocalPort();
            assertThat(port).isNotEqualTo(6379);
            return port;
        }
    }
}
