package dev.ratelimit.http.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.RedisStoreRegistry;
import dev.ratelimit.http.FakeRequest;
import dev.ratelimit.internal.http.settings.HttpPolicy;
import dev.ratelimit.internal.http.webapp.PolicyRuntime;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The status report of policies whose Redis cannot be reached (nothing listens on port 1): it
 * still renders from what the JVM counted, says why limiting is not working, and escapes client
 * keys chosen by clients in both formats.
 */
class StatusReportTest {
    private static final String HOSTILE_USER = "<script>alert(1)</script>";
    private static final String JSON_BREAKER = "x\",\"denials\":999,\"y\":\"";

    private final RedisStoreRegistry registry = new RedisStoreRegistry();
    private final List<PolicyRuntime> runtimes = new ArrayList<>();

    @AfterEach
    void close() {
        runtimes.forEach(PolicyRuntime::close);
    }

    private PolicyRuntime start(String... pairs) {
        Map<String, String> settings = new HashMap<>();
        settings.put("limit", "5");
        settings.put("window", "1m");
        settings.put("redisUri", "redis://:hunter2@127.0.0.1:1");
        settings.put("redisTimeout", "100ms");
        settings.put("jmx", "false");
        for (int i = 0; i < pairs.length; i += 2) {
            settings.put(pairs[i], pairs[i + 1]);
        }
        HttpPolicy policy = HttpPolicy.parser("init-param '%s'").defaultPolicyName("api", "the filter-name")
                .parse(settings);
        PolicyRuntime runtime = PolicyRuntime.start(policy, registry, "/status-test");
        runtimes.add(runtime);
        return runtime;
    }

    @Test
    void aPolicyWhoseRedisIsDownRendersItsDenialsAndSaysWhy() throws Exception {
        PolicyRuntime api = start("key", "user", "onRedisFailure", "deny");
        for (String user : Arrays.asList(HOSTILE_USER, HOSTILE_USER, JSON_BREAKER)) {
            FakeRequest request = new FakeRequest();
            request.userName = user;
            assertThat(api.pipeline().before(request).denied()).isTrue();
        }

        StatusReport report = StatusReport.of("/shop", java.util.Collections.singletonList(api));
        String html = report.html();
        String json = report.json();

        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        assertThat(page.getElementsByTagName("svg").getLength()).isEqualTo(1);
        assertThat(page.getDocumentElement().getTextContent()).contains(HOSTILE_USER).contains(JSON_BREAKER)
                .contains("Redis unreachable: breaker OPEN, onRedisFailure=deny answers 503");
        assertThat(html).doesNotContain(HOSTILE_USER).doesNotContain("hunter2");
        assertThat(json).doesNotContain(HOSTILE_USER).doesNotContain(JSON_BREAKER).doesNotContain("hunter2")
                .contains("\"key\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\",\"denials\":2")
                .contains("\"key\":\"x\\\",\\\"denials\\\":999,\\\"y\\\":\\\"\",\"denials\":1")
                .contains("\"last5Minutes\":{\"startSecond\":").contains("\"denied\":3,\"degraded\":3")
                .contains("\"level\":\"alert\"")
                .contains("\"evictedKeys\":null,\"server\":null,\"nodes\":[{\"node\":")
                .contains(",\"server\":null}]}");
        assertThat(page.getDocumentElement().getTextContent()).as("a Redis down is no server named")
                .contains("Redis serverunknown: not read yet");
    }

    @Test
    void eachTierIsShownWithItsOwnLimiter() throws Exception {
        PolicyRuntime api = start("tiers", "partner:10", "tierFrom", "role", "policyName", "tiered");

        StatusReport report = StatusReport.of("/shop", java.util.Collections.singletonList(api));

        assertThat(report.json()).contains("{\"name\":\"tiered\",\"tier\":null,")
                .contains("{\"name\":\"tiered.partner\",\"tier\":\"partner\",\"rules\":[{\"name\":")
                .contains("\"limit\":10,");
        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(report.html().getBytes(StandardCharsets.UTF_8)));
        assertThat(page.getElementsByTagName("svg").getLength()).isEqualTo(2);
        assertThat(page.getElementsByTagName("h3").item(1).getTextContent()).isEqualTo("Tier partner (tiered.partner)");
    }

    @Test
    void theOverviewListsEveryPolicyWorstFirstAndLinksToItsSection() throws Exception {
        // Each its own Redis (none answers), so that one policy's breaker is not the others'.
        PolicyRuntime idle = start("policyName", "a-idle", "redisUri", "redis://127.0.0.1:2");
        PolicyRuntime dryRun = start("policyName", "b-dry-run", "enforce", "false", "redisUri", "redis://127.0.0.1:3");
        PolicyRuntime failing = start("policyName", "z<b>\"&%#'", "onRedisFailure", "deny");
        for (int i = 0; i < 3; i++) {
            assertThat(failing.pipeline().before(new FakeRequest()).denied()).isTrue();
        }

        StatusReport report = StatusReport.of("/shop", Arrays.asList(idle, dryRun, failing));

        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(report.html().getBytes(StandardCharsets.UTF_8)));
        Element overview = (Element) page.getElementsByTagName("table").item(0);
        assertThat(overview.getAttribute("class")).isEqualTo("overview");
        NodeList rows = overview.getElementsByTagName("tr");
        assertThat(rows.getLength()).as("a header and one row per policy").isEqualTo(4);
        assertThat(cells(rows.item(1))).containsExactly("z<b>\"&%#'", "alert", "3", "100 %", "OPEN", "no call yet",
                "none");
        assertThat(cells(rows.item(2))).containsExactly("b-dry-run", "warning", "0", "0 %", "CLOSED", "no call yet",
                "none");
        assertThat(cells(rows.item(3))).startsWith("a-idle", "idle");
        NodeList links = overview.getElementsByTagName("a");
        List<String> sectionIds = new ArrayList<>();
        NodeList sections = page.getElementsByTagName("section");
        for (int i = 0; i < sections.getLength(); i++) {
            sectionIds.add(((Element) sections.item(i)).getAttribute("id"));
        }
        assertThat(sectionIds).as("sections stay in name order").containsExactly("policy-a-idle", "policy-b-dry-run",
                "policy-z%3Cb%3E%22%26%25%23%27");
        for (int i = 0; i < links.getLength(); i++) {
            assertThat(sectionIds).contains(((Element) links.item(i)).getAttribute("href").substring(1));
        }

        assertThat(report.json()).contains("\"overview\":[{\"name\":\"z\\u003cb\\u003e\\\"\\u0026%#'\",\"level\":\"alert\","
                + "\"decisions\":3,\"denied\":3,\"breaker\":\"OPEN\",\"redisLatencyP99Micros\":null,"
                + "\"overrides\":{\"limit\":null,\"enforce\":null}},{\"name\":\"b-dry-run\",\"level\":\"warning\",");
    }

    private static List<String> cells(org.w3c.dom.Node row) {
        List<String> texts = new ArrayList<>();
        NodeList cells = ((Element) row).getElementsByTagName("td");
        for (int i = 0; i < cells.getLength(); i++) {
            texts.add(cells.item(i).getTextContent());
        }
        return texts;
    }

    @Test
    void aClientLookedUpWhileRedisIsDownIsShownFirstEscapedAndNowhereElse() throws Exception {
        PolicyRuntime byUser = start("key", "user", "onRedisFailure", "deny", "policyName", "login");
        PolicyRuntime byApiKey = start("key", "header:X-Api-Key", "policyName", "partners");
        PolicyRuntime byAddress = start("key", "ip", "policyName", "anonymous");
        List<PolicyRuntime> all = Arrays.asList(byUser, byApiKey, byAddress);

        StatusReport report = StatusReport.of("/shop", all, HOSTILE_USER);
        String html = report.html();
        String json = report.json();

        Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
        Element lookup = (Element) page.getElementsByTagName("section").item(0);
        assertThat(lookup.getAttribute("id")).as("the lookup opens the page").isEqualTo("client");
        String lookupText = lookup.getTextContent();
        assertThat(lookupText).as("a user name is its own key")
                .contains("login" + "login" + HOSTILE_USER + "Redis cannot be asked: onRedisFailure answers denied")
                .contains("partners" + "partners" + byApiKey.oneClient().keyOf(HOSTILE_USER))
                .contains("anonymous" + "no client of this policy: policy 'anonymous' keys clients by ip");
        assertThat(byApiKey.oneClient().keyOf(HOSTILE_USER)).startsWith("#").doesNotContain("script");
        assertThat(page.getDocumentElement().getTextContent().replace(lookupText, ""))
                .as("the value in no other section").doesNotContain(HOSTILE_USER);
        assertThat(html).doesNotContain(HOSTILE_USER);
        assertThat(json).doesNotContain(HOSTILE_USER)
                .contains("\"client\":{\"policies\":[{\"name\":\"anonymous\",\"problem\":\"no client of this policy: ")
                .contains("{\"name\":\"login\",\"key\":\"\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\","
                        + "\"allowed\":false,\"degraded\":true,\"limit\":5,\"remaining\":0,\"retryAfter\":1,")
                .contains("{\"name\":\"partners\",\"key\":\"" + byApiKey.oneClient().keyOf(HOSTILE_USER) + "\","
                        + "\"allowed\":true,\"degraded\":true,");
        assertThat(StatusReport.of("/shop", all).json()).as("no lookup asked, none given").doesNotContain("\"client\"");
    }

    @Test
    void anIdlePolicyInDryRunSaysSo() {
        PolicyRuntime api = start("enforce", "false");

        String json = StatusReport.of("", java.util.Collections.singletonList(api)).json();

        assertThat(json).startsWith("{\"webapp\":\"/\"").contains("dry run: enforce=false, denials are not blocking");
    }
}
