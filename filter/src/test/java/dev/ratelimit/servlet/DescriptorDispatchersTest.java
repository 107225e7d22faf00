package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.servlet.DescriptorDispatchers.Mapping;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What WEB-INF/web.xml says of a filter's ASYNC dispatcher, in every descriptor style users have. */
class DescriptorDispatchersTest {
    private static InputStream xml(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String webApp(String namespace, String version, String body) {
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<web-app xmlns=\"" + namespace + "\" version=\"" + version
                + "\">\n" + body + "\n</web-app>";
    }

    private static final String FILTER = "<filter><filter-name>api</filter-name>"
            + "<filter-class>dev.ratelimit.servlet.RateLimitFilter</filter-class></filter>";

    @Test
    void aMappingListingAsyncInAnyNamespaceIsAsync() {
        String mapping = FILTER + "<filter-mapping><filter-name> api </filter-name><url-pattern>/api/*</url-pattern>"
                + "<dispatcher>REQUEST</dispatcher><dispatcher> ASYNC </dispatcher></filter-mapping>";
        for (String namespace : new String[] {"http://xmlns.jcp.org/xml/ns/javaee", "https://jakarta.ee/xml/ns/jakartaee",
                "http://java.sun.com/xml/ns/javaee"}) {
            assertThat(DescriptorDispatchers.of(xml(webApp(namespace, "3.1", mapping)), "api")).as(namespace)
                    .isEqualTo(Mapping.ASYNC);
        }
    }

    @Test
    void mappingsWithoutAsyncAreNotAsyncAndAnyOneOfThemListingItIsEnough() {
        String requestOnly = FILTER + "<filter-mapping><filter-name>api</filter-name><url-pattern>/api/*</url-pattern>"
                + "</filter-mapping><filter-mapping><filter-name>api</filter-name><url-pattern>/v2/*</url-pattern>"
                + "<dispatcher>REQUEST</dispatcher><dispatcher>FORWARD</dispatcher></filter-mapping>";
        assertThat(DescriptorDispatchers.of(xml(webApp("http://xmlns.jcp.org/xml/ns/javaee", "3.1", requestOnly)), "api"))
                .isEqualTo(Mapping.NOT_ASYNC);
        String oneAsync = requestOnly + "<filter-mapping><filter-name>api</filter-name><url-pattern>/v3/*</url-pattern>"
                + "<dispatcher>async</dispatcher></filter-mapping>";
        assertThat(DescriptorDispatchers.of(xml(webApp("http://xmlns.jcp.org/xml/ns/javaee", "3.1", oneAsync)), "api"))
                .isEqualTo(Mapping.ASYNC);
    }

    @Test
    void aFilterTheDescriptorDoesNotMapOrNoDescriptorAtAllIsUnknown() {
        String other = "<filter-mapping><filter-name>auth</filter-name><url-pattern>/*</url-pattern></filter-mapping>";
        assertThat(DescriptorDispatchers.of(xml(webApp("http://xmlns.jcp.org/xml/ns/javaee", "3.1", other)), "api"))
                .as("mapped in code or a web-fragment, perhaps").isEqualTo(Mapping.UNKNOWN);
        assertThat(DescriptorDispatchers.of(null, "api")).isEqualTo(Mapping.UNKNOWN);
        assertThat(DescriptorDispatchers.of(xml("<web-app><filter-mapping>"), "api")).as("malformed")
                .isEqualTo(Mapping.UNKNOWN);
    }

    @Test
    void anOldDescriptorNamingItsDtdByUrlIsReadWithoutFetchingIt() {
        String servlet23 = "<?xml version=\"1.0\"?>\n<!DOCTYPE web-app PUBLIC \"-//Sun Microsystems, Inc.//DTD Web"
                + " Application 2.3//EN\" \"http://127.0.0.1:1/web-app_2_3.dtd\">\n<web-app>" + FILTER
                + "<filter-mapping><filter-name>api</filter-name><url-pattern>/api/*</url-pattern></filter-mapping>"
                + "</web-app>";
        assertThat(DescriptorDispatchers.of(xml(servlet23), "api")).isEqualTo(Mapping.NOT_ASYNC);
    }

    @Test
    void anExternalEntityIsNeverRead(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("secret.txt"), "api");
        String hostile = "<?xml version=\"1.0\"?>\n<!DOCTYPE web-app [<!ENTITY name SYSTEM \"" + secret.toUri()
                + "\">]>\n<web-app><filter-mapping><filter-name>&name;</filter-name><dispatcher>ASYNC</dispatcher>"
                + "</filter-mapping></web-app>";
        assertThat(DescriptorDispatchers.of(xml(hostile), "api")).as("the entity's file is not its name")
                .isEqualTo(Mapping.UNKNOWN);
    }
}
