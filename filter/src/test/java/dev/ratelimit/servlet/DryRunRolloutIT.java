package dev.ratelimit.servlet;

import static dev.ratelimit.servlet.MiniJson.list;
import static dev.ratelimit.servlet.MiniJson.map;
import static dev.ratelimit.servlet.MiniJson.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.internal.jmx.RateLimiterJmx;
import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.Attribute;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/rollout.md, step by step, on Tomcat and on Jetty: its dry-run web.xml (the limit lowered to
 * 3) lets every request through with the headers of a refusal; the log line, the status page's
 * verdict and most-denied list, and the JMX counts read as the page quotes them; a limit tried live
 * holds at once; {@code EnforceOverride} switches it on, is kept in Redis without a TTL through a
 * redeploy and over web.xml, and goes with {@code clearOverrides()} or a {@code DEL} of its hash.
 */
class DryRunRolloutIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();
    private static final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    /** What varies in a quoted line: an origin (host, instant) and numbers. */
    private static final Pattern VARYING = Pattern.compile("JMX on \\S+ at [0-9TZ:.-]+|\\d+");

    @AfterAll
    static void stop() {
        containers.close();
    }

    private static String page() throws IOException {
        return Files.readString(Path.of("..", "docs", "rollout.md"));
    }

    /** Every line of the page's code blocks marked {@code <!-- rollout: <what> -->}. */
    private static List<String> quoted(String what) throws IOException {
        String page = page();
        List<String> lines = new ArrayList<>();
        for (int at = page.indexOf("<!-- rollout: " + what); at >= 0; at = page.indexOf("<!-- rollout: " + what, at + 1)) {
            int start = page.indexOf("```\n", at) + 4;
            lines.addAll(page.substring(start, page.indexOf("```", start)).strip().lines().toList());
        }
        assertThat(lines).as("docs/rollout.md quotes its %s", what).isNotEmpty();
        return lines;
    }

    /** The quoted line as a pattern: its origins and numbers may be any. */
    private static Pattern shape(String quoted) {
        StringBuilder regex = new StringBuilder();
        Matcher varying = VARYING.matcher(quoted);
        int last = 0;
        while (varying.find()) {
            regex.append(Pattern.quote(quoted.substring(last, varying.start())))
                    .append(varying.group().startsWith("JMX") ? "JMX(?: user '[^']*')? on .+? at [0-9TZ:.-]+" : "\\d+");
            last = varying.end();
        }
        return Pattern.compile(regex.append(Pattern.quote(quoted.substring(last))).toString());
    }

    /** The one quoted line of that kind that starts with {@code start}, as a pattern. */
    private static Pattern quotedLine(String what, String start) throws IOException {
        return shape(quoted(what).stream().filter(line -> line.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("docs/rollout.md quotes no " + what + " line starting '" + start + "'")));
    }

    private static URI deploy(Kind kind, String path, String enforce) throws Exception {
        Map<String, String> params = FilterParams.of(redis);
        params.putAll(ReadmeSnippets.initParams("web.xml dry run"));
        params.put("limit", "3");
        params.put("enforce", enforce);
        params.put("keyPrefix", redis.keyPrefix() + kind + ":");
        return containers.get(kind).deploy(AppDescriptor.builder(path).filter("api", RateLimitFilter.class.getName(),
                params, "/api/*").servlet("ratelimit-status", RateLimitStatusServlet.class.getName(), "/ratelimit/status")
                .build());
    }

    private static Map<String, Object> statusOfApi(URI app) {
        return policy(map(MiniJson.parse(Http.get(app.resolve("ratelimit/status?format=json")).body())), "api");
    }

    private static String verdict(URI app) {
        return (String) map(statusOfApi(app).get("verdict")).get("text");
    }

    private static Object attribute(ObjectName bean, String name) throws JMException {
        return jmx.getAttribute(bean, name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theRolloutPageStepByStep(Kind kind) throws Exception {
        String path = "/rollout-" + kind;
        URI app = deploy(kind, path, "false");
        URI orders = app.resolve("api/orders");
        ObjectName bean = RateLimiterJmx.name(path, "api", 1);
        String hash = redis.keyPrefix() + kind + ":api:{api}:overrides";

        // 1 and 2: a dry run lets everything through, and says what it would have refused.
        List<HttpResponse<String>> answers = new ArrayList<>();
        String log = CapturedLog.during(() -> {
            for (int i = 0; i < 5; i++) {
                answers.add(Http.get(orders));
            }
        });
        assertThat(answers).extracting(HttpResponse::statusCode).containsOnly(200);
        assertThat(answers.get(3).headers().firstValue("RateLimit")).hasValue("\"api\";r=0;t=60");
        assertThat(answers.get(3).headers().firstValue("Retry-After")).hasValue("60");
        Pattern dryRunLine = quotedLine("log lines", "Rate limit policy 'api' (enforce=false)");
        assertThat(log.lines().filter(line -> line.contains("(enforce=false) would have denied")).toList())
                .as("one line per 5 s, the first at once").singleElement()
                .satisfies(line -> assertThat(line).containsPattern(dryRunLine)
                        .contains("INFO dev.ratelimit.http.pipeline.RateLimitPipeline - "));

        assertThat(verdict(app)).matches(quotedLine("verdicts", "dry run: enforce=false")).contains("(2 would-be denials");
        Map<String, Object> recent = map(map(list(statusOfApi(app).get("limiters")).get(0)).get("last5Minutes"));
        assertThat(recent).containsEntry("denied", 2L);
        assertThat(list(recent.get("mostDenied"))).singleElement()
                .satisfies(key -> assertThat(map(key)).containsEntry("key", "127.0.0.1").containsEntry("denials", 2L));
        assertThat(attribute(bean, "Allowed")).isEqualTo(3L);
        assertThat(attribute(bean, "Denied")).isEqualTo(2L);
        assertThat(attribute(bean, "LocalCacheDenials")).as("the second without a Redis call").isEqualTo(1L);
        assertThat(attribute(bean, "EffectiveEnforce")).isEqualTo(false);
        assertThat((String) jmx.invoke(bean, "peekClient", new Object[] {"127.0.0.1"}, new String[] {"java.lang.String"}))
                .startsWith("api: denied, 0 of 3 left");

        // 3: a limit tried live holds from the next request; nothing more would have been refused.
        jmx.setAttribute(bean, new Attribute("LimitOverride", 6L));
        assertThat(Http.get(orders).headers().firstValue("RateLimit")).hasValue("\"api\";r=2;t=60");
        assertThat(attribute(bean, "Denied")).isEqualTo(2L);

        // 4: switched on live; the change is logged as the page quotes it.
        List<Integer> statuses = new ArrayList<>();
        String switched = CapturedLog.during(() -> {
            jmx.setAttribute(bean, new Attribute("EnforceOverride", true));
            for (int i = 0; i < 3; i++) {
                statuses.add(Http.get(orders).statusCode());
            }
        });
        assertThat(statuses).containsExactly(200, 200, 429);
        assertThat(switched).containsPattern(quotedLine("log lines", "Rate limit policy 'api' overrides changed by"));
        assertThat(verdict(app)).startsWith("working: ");

        // 5: kept in Redis, without a TTL, through a redeploy and over web.xml's enforce=false.
        assertThat(redis.client().hgetAll(hash)).containsEntry("limit", "6").containsEntry("enforce", "true")
                .hasEntrySatisfying("origin", origin -> assertThat(origin).startsWith("JMX on "));
        assertThat(redis.client().ttl(hash)).as("no expiry").isEqualTo(-1L);
        containers.get(kind).undeploy(path);
        URI redeployed = deploy(kind, path, "false").resolve("api/orders");
        assertThat(Http.get(redeployed).statusCode()).as("still enforced after the redeploy").isEqualTo(429);
        assertThat(attribute(bean, "EnforceOverride")).isEqualTo(true);
        assertThat(attribute(bean, "LimitOverride")).isEqualTo(6L);
        assertThatThrownBy(() -> jmx.setAttribute(bean, new Attribute("EnforceOverride", null)))
                .as("no way back to empty but clearOverrides").isInstanceOf(RuntimeMBeanException.class)
                .cause().hasMessage("enforce must be true or false, but was 'null'");
        assertThat(attribute(bean, "EnforceOverride")).isEqualTo(true);

        String cleared = CapturedLog.during(() -> jmx.invoke(bean, "clearOverrides", new Object[0], new String[0]));
        assertThat(cleared).containsPattern(quotedLine("log lines", "Rate limit policy 'api' overrides cleared by"));
        assertThat(redis.client().exists(hash)).as("the hash is gone").isFalse();
        assertThat(Http.get(redeployed).statusCode()).as("web.xml's dry run again").isEqualTo(200);
        assertThat(attribute(bean, "LimitOverride")).isEqualTo(-1L);
        assertThat(attribute(bean, "EnforceOverride")).isNull();
        assertThat(attribute(bean, "OverrideOrigin")).isEqualTo("");

        // An EnforceOverride of false outlives a redeploy that switches enforce on in web.xml.
        jmx.setAttribute(bean, new Attribute("EnforceOverride", false));
        containers.get(kind).undeploy(path);
        URI enforcing = deploy(kind, path, "true");
        URI switchedOn = enforcing.resolve("api/orders");
        List<Integer> overridden = new ArrayList<>();
        String overriddenLog = CapturedLog.during(() -> {
            for (int i = 0; i < 4; i++) {
                overridden.add(Http.get(switchedOn).statusCode());
            }
        });
        assertThat(overridden).as("a dry run, though web.xml enforces").containsOnly(200);
        assertThat(overriddenLog.lines().filter(line -> line.contains(" would have denied")).toList())
                .as("the log line names the override, not web.xml's enforce").singleElement()
                .satisfies(line -> assertThat(line).containsPattern(
                        quotedLine("log lines", "Rate limit policy 'api' (enforce overridden to false")));
        assertThat(verdict(enforcing)).matches(quotedLine("verdicts", "dry run: enforce overridden to false"));

        // Deleted by hand: a running node takes it as cleared within its 2 s interval.
        redis.client().del(hash);
        long start = System.nanoTime();
        while (Http.get(switchedOn).statusCode() != 429) {
            assertThat(System.nanoTime() - start).as("enforced again within 5 s").isLessThan(TimeUnit.SECONDS.toNanos(5));
            TimeUnit.MILLISECONDS.sleep(100);
        }
        containers.get(kind).undeploy(path);
    }
}
