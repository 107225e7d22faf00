package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.ratelimit.servlet.containers.AppDescriptor;
import dev.ratelimit.servlet.containers.FilterDecl;
import dev.ratelimit.servlet.containers.DispatchingServlet;
import dev.ratelimit.servlet.containers.Http;
import dev.ratelimit.servlet.containers.ServletContainers;
import dev.ratelimit.servlet.containers.ServletContainers.Kind;
import dev.ratelimit.testing.RedisServerExtension;
import jakarta.servlet.DispatcherType;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The README's web.xml snippet, deployed as written: only redisUri points at this test's Redis. */
class ReadmeWebXmlIT {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final ServletContainers.Pool containers = new ServletContainers.Pool();

    @AfterAll
    static void stop() {
        containers.close();
    }

    /** The first xml block after the README's "web.xml snippet" marker. */
    private static Document snippet() throws Exception {
        String readme = ReadmeSnippets.documentation();
        int marker = readme.indexOf("<!-- web.xml snippet");
        assertThat(marker).as("the README marks its web.xml snippet").isPositive();
        int start = readme.indexOf("```xml", marker) + "```xml".length();
        String xml = "<web-app>" + readme.substring(start, readme.indexOf("```", start)) + "</web-app>";
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(Element parent, String tag) {
        return parent.getElementsByTagName(tag).item(0).getTextContent().trim();
    }

    private static AppDescriptor webApp(String path) throws Exception {
        Document doc = snippet();
        AppDescriptor.Builder app = AppDescriptor.builder(path);
        NodeList contextParams = doc.getElementsByTagName("context-param");
        for (int i = 0; i < contextParams.getLength(); i++) {
            Element param = (Element) contextParams.item(i);
            String name = text(param, "param-name");
            app.contextParam(name, name.equals("ratelimit.redisUri") ? redis.uri() : text(param, "param-value"));
        }
        // Apart per container: the two runs must not share buckets.
        app.contextParam("ratelimit.keyPrefix", redis.keyPrefix() + path.substring(1) + ":");
        Map<String, List<String>> patterns = new LinkedHashMap<>();
        Map<String, List<DispatcherType>> dispatchers = new LinkedHashMap<>();
        NodeList mappings = doc.getElementsByTagName("filter-mapping");
        for (int i = 0; i < mappings.getLength(); i++) {
            Element mapping = (Element) mappings.item(i);
            String name = text(mapping, "filter-name");
            patterns.computeIfAbsent(name, n -> new ArrayList<>()).add(text(mapping, "url-pattern"));
            NodeList types = mapping.getElementsByTagName("dispatcher");
            for (int j = 0; j < types.getLength(); j++) {
                dispatchers.computeIfAbsent(name, n -> new ArrayList<>())
                        .add(DispatcherType.valueOf(types.item(j).getTextContent().trim()));
            }
        }
        NodeList filters = doc.getElementsByTagName("filter");
        for (int i = 0; i < filters.getLength(); i++) {
            Element filter = (Element) filters.item(i);
            Map<String, String> initParams = new LinkedHashMap<>();
            NodeList params = filter.getElementsByTagName("init-param");
            for (int j = 0; j < params.getLength(); j++) {
                Element param = (Element) params.item(j);
                initParams.put(text(param, "param-name"), text(param, "param-value"));
            }
            String name = text(filter, "filter-name");
            app.filter(name, text(filter, "filter-class"), initParams, patterns.get(name).toArray(new String[0]));
            if (dispatchers.containsKey(name)) {
                List<DispatcherType> types = dispatchers.get(name);
                app.dispatchers(name, types.get(0), types.subList(1, types.size()).toArray(new DispatcherType[0]));
            }
            if (filter.getElementsByTagName("async-supported").getLength() > 0
                    && Boolean.parseBoolean(text(filter, "async-supported"))) {
                app.asyncSupported(name);
            }
        }
        // Not in the snippet: an async servlet behind the api filter, which its <async-supported> allows.
        app.servlet("async", DispatchingServlet.class.getName(), "/api/async").asyncSupported("async");
        return app.build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theSnippetDeploysAndLimits(Kind kind) throws Exception {
        assertThat(webApp("/readme-check").filters()).as("the snippet's filters are async-supported")
                .isNotEmpty().allMatch(FilterDecl::asyncSupported);
        URI app = containers.get(kind).deploy(webApp("/readme-" + kind));

        var api = Http.get(app.resolve("api/orders"));
        assertThat(api.statusCode()).isEqualTo(200);
        assertThat(api.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=100;w=60");
        assertThat(Http.get(app.resolve("api/health")).headers().firstValue("RateLimit")).isEmpty();
        var async = Http.get(app.resolve("api/async"));
        assertThat(async.statusCode()).as("startAsync() behind the filter").isEqualTo(200);
        assertThat(async.headers().allValues("RateLimit")).singleElement(as(STRING)).startsWith("\"api\";r=98;");

        assertThat(Http.get(app.resolve("login")).headers().firstValue("RateLimit")).as("GET is not limited").isEmpty();
        for (int i = 0; i < 3; i++) {
            assertThat(Http.send("POST", app.resolve("login?user=alice")).statusCode()).isEqualTo(200);
        }
        assertThat(Http.send("POST", app.resolve("login?user=alice")).statusCode()).as("burst 3 spent").isEqualTo(429);
        assertThat(Http.send("POST", app.resolve("login?user=bob")).statusCode()).isEqualTo(200);
    }

    /**
     * README's login rule ({@code key=ip+param:user}, burst 3) against what a browser's login form
     * sends: the user in a form body, not in the query string. Each address and user pair has its own
     * budget, and a post without a user is limited per address, never in one bucket for all.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ratelimit.servlet.containers.ServletContainers#kinds")
    void theLoginRuleLimitsABrowsersFormPerAddressAndUser(Kind kind) throws Exception {
        URI login = containers.get(kind).deploy(webApp("/readme-form-" + kind)).resolve("login");
        List<String> addresses = List.of("127.0.0.1", "127.0.0.2");
        List<String> users = List.of("alice", "bob");
        for (int round = 0; round < 3; round++) {
            for (String address : addresses) {
                for (String user : users) {
                    assertThat(Http.statusOfFormPostFrom(address, login, "user=" + user + "&password=wrong"))
                            .as("post %d of %s from %s", round + 1, user, address).isEqualTo(200);
                }
            }
        }
        for (String address : addresses) {
            for (String user : users) {
                assertThat(Http.statusOfFormPostFrom(address, login, "user=" + user + "&password=wrong"))
                        .as("%s from %s has spent its burst of 3", user, address).isEqualTo(429);
            }
        }
        for (String address : addresses) {
            for (int i = 0; i < 3; i++) {
                assertThat(Http.statusOfFormPostFrom(address, login, "password=wrong"))
                        .as("post %d without a user from %s: limited per address", i + 1, address).isEqualTo(200);
            }
            assertThat(Http.statusOfFormPostFrom(address, login, "password=wrong")).isEqualTo(429);
        }
    }
}
