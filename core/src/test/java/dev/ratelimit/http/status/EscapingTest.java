package dev.ratelimit.http.status;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the status page does to text it did not write: client keys, names, configuration. */
class EscapingTest {
    @Test
    void markupKeepsOnlyThePredefinedEntitiesAndDropsWhatXmlCannotCarry() {
        assertThat(Markup.escape("<script>alert('x')</script> & \"q\""))
                .isEqualTo("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
        assertThat(Markup.escape("a\u0000b\u001bc\td\ud800e\uffff")).isEqualTo("a\ufffdb\ufffdc\td\ufffde\ufffd");
        assertThat(Markup.escape("caf\u00e9 \ud83d\ude00")).as("a surrogate pair stays").isEqualTo("caf\u00e9 \ud83d\ude00");
    }

    @Test
    void jsonEscapesQuotesControlsLineSeparatorsAndMarkup() {
        assertThat(JsonText.quote("\"},{\"x\\")).isEqualTo("\"\\\"},{\\\"x\\\\\"");
        assertThat(JsonText.quote("a\nb\u0001\u2028\u2029")).isEqualTo("\"a\\nb\\u0001\\u2028\\u2029\"");
        assertThat(JsonText.quote("<script>&")).isEqualTo("\"\\u003cscript\\u003e\\u0026\"");
        assertThat(JsonText.quote(null)).isEqualTo("null");
    }
}
