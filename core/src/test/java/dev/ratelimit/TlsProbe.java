package dev.ratelimit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * The JVM of a server configured as docs/security.md says for a private CA, for {@link RedisTlsIT}:
 * started with {@code -Djavax.net.ssl.trustStore} (and {@code keyStore}) naming files that do not
 * exist yet. It makes them first, as an operator would with keytool (a CA, the Redis server's key
 * and certificate for {@code localhost}, and a copy of the JDK's cacerts with the CA added), says
 * {@code files ready}, waits for the TLS port on stdin, and then reports what the library and the
 * JVM do: one line each, {@code <what>: <result>}.
 */
public final class TlsProbe {
    static final String PASSWORD = "changeit";

    private TlsProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        makeFiles(dir);
        System.out.println("files ready");
        System.out.flush();
        String port = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine().trim();

        System.out.println("localhost: " + decide("rediss://localhost:" + port));
        System.out.println("127.0.0.1: " + decide("rediss://127.0.0.1:" + port));
        X509TrustManager trust = defaultTrust();
        boolean ca = false;
        for (X509Certificate issuer : trust.getAcceptedIssuers()) {
            ca |= issuer.getSubjectX500Principal().getName().contains("ratelimit-test-ca");
        }
        KeyStore jdk = KeyStore.getInstance(Path.of(System.getProperty("java.home"), "lib", "security", "cacerts").toFile(),
                (char[]) null);
        System.out.println("default trust: " + trust.getAcceptedIssuers().length + " anchors, the JDK's cacerts "
                + jdk.size() + ", private CA " + ca);
        org.apache.tomcat.util.net.SSLHostConfig tomcat = new org.apache.tomcat.util.net.SSLHostConfig();
        System.out.println("tomcat truststoreFile: " + tomcat.getTruststoreFile() + ", truststorePassword: "
                + tomcat.getTruststorePassword());
        System.out.flush();
    }

    /** One decision through a store of its own, without a failure policy: who answered, or why nobody could. */
    static String decide(String uri) {
        try (RedisStore store = RedisStore.connect(RedisSettings.builder(uri).timeout(Duration.ofSeconds(5)).build())) {
            RateLimiter limiter = RateLimiter.builder(store).policyName("tls")
                    .rule(Rule.of(Algorithm.FIXED_WINDOW, 5, Duration.ofMinutes(1))).build();
            return "decided by Redis, remaining " + limiter.tryAcquire("c").remaining();
        } catch (RedisFailureException e) {
            return "failed:" + causes(e);
        }
    }

    static String causes(Throwable e) {
        StringBuilder text = new StringBuilder();
        for (Throwable each = e; each != null; each = each.getCause()) {
            text.append(" <- ").append(each.getMessage());
        }
        return text.toString();
    }

    private static X509TrustManager defaultTrust() throws Exception {
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init((KeyStore) null);
        for (TrustManager manager : factory.getTrustManagers()) {
            if (manager instanceof X509TrustManager) {
                return (X509TrustManager) manager;
            }
        }
        throw new IllegalStateException("no X509TrustManager");
    }

    /**
     * What an operator makes with keytool, by the JDK's keytool itself: a CA, and
     * the Redis server's key with a certificate for {@code localhost} that the CA signed. The client
     * presents the CA's own certificate (ca.p12 is the JVM's key store), which Redis trusts.
     */
    static void makeFiles(Path dir) throws Exception {
        String ca = dir.resolve("ca.p12").toString();
        String redis = dir.resolve("redis.p12").toString();
        keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=ratelimit-test-ca", "-ext", "bc:c",
                "-validity", "2", "-keystore", ca, "-storepass", PASSWORD);
        keytool("-exportcert", "-alias", "ca", "-rfc", "-file", dir.resolve("ca.pem").toString(), "-keystore", ca,
                "-storepass", PASSWORD);
        keytool("-genkeypair", "-alias", "redis", "-keyalg", "EC", "-dname", "CN=localhost", "-validity", "2",
                "-keystore", redis, "-storepass", PASSWORD);
        keytool("-certreq", "-alias", "redis", "-file", dir.resolve("redis.csr").toString(), "-keystore", redis,
                "-storepass", PASSWORD);
        keytool("-gencert", "-alias", "ca", "-infile", dir.resolve("redis.csr").toString(), "-outfile",
                dir.resolve("redis.pem").toString(), "-rfc", "-ext", "san=dns:localhost", "-validity", "2",
                "-keystore", ca, "-storepass", PASSWORD);
        // Redis reads its key as PEM.
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(Path.of(redis))) {
            server.load(in, PASSWORD.toCharArray());
        }
        PrivateKey key = (PrivateKey) server.getKey("redis", PASSWORD.toCharArray());
        Files.writeString(dir.resolve("redis.key"), "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded())
                + "\n-----END PRIVATE KEY-----\n");
        // The page's trust store: a copy of the JDK's own list, and the private CA added.
        Files.copy(Path.of(System.getProperty("java.home"), "lib", "security", "cacerts"), dir.resolve("truststore.p12"));
        keytool("-importcert", "-noprompt", "-alias", "redis-ca", "-file", dir.resolve("ca.pem").toString(), "-keystore",
                dir.resolve("truststore.p12").toString(), "-storepass", PASSWORD);
    }

    /**
     * The JDK's keytool, run as the operator runs it: its own process, its output read here (and shown
     * only when it fails).
     */
    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        // A JVM of half a second: C1 and the serial collector spend less of the machine's two cores.
        command.addAll(List.of("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC"));
        command.addAll(Arrays.asList(args));
        Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
        keytool.getOutputStream().close();
        // Its input closed, keytool cannot wait for an answer: its output ends when it does.
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = keytool.waitFor();
        if (exit != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " exited with " + exit + ": " + output);
        }
    }
}
