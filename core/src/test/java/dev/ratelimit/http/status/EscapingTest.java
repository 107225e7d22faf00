package dev.ratelimit.http.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.internal.http.settings.HttpText;
import org.junit.jupiter.api.Test;

/** What the status page does to text it did not write: client keys, names, configuration. */
class EscapingTest {
    @Test
    void markupKeepsOnlyThePredefinedEntitiesAndDropsWhatXmlCannotCarry() {
        assertThat(HttpText.markup("<script>alert('x')</script> & \"q\""))
                .isEqualTo("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
        assertThat(HttpText.markup("a\u0000b\u001bc\td\ud800e\uffff")).isEqualTo("a\ufffdb\ufffdc\td\ufffde\ufffd");
        assertThat(HttpText.markup("caf\u00e9 \ud83d\ude00")).as("a surrogate pair stays").isEqualTo("caf\u00e9 \ud83d\ude00");
    }

    @Test
    void jsonEscapesQuotesControlsLineSeparatorsAndMarkup() {
        assertThat(HttpText.jsonQuoted("\"},{\"x\\")).isEqualTo("\"\\\"},{\\\"x\\\\\"");
        assertThat(HttpText.jsonQuoted("a\nb\u0001\u2028\u2029")).isEqualTo("\"a\\nb\\u0001\\u2028\\u2029\"");
        assertThat(HttpText.jsonQuoted("<script>&")).isEqualTo("\"\\u003cscript\\u003e\\u0026\"");
        assertThat(HttpText.jsonQuoted(null)).isEqualTo("null");
    }
}
