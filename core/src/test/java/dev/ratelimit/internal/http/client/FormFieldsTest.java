package dev.ratelimit.internal.http.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FormFieldsTest {
    private static String first(String body, String name) {
        byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
        return FormFields.first(bytes, bytes.length, name, StandardCharsets.UTF_8);
    }

    @Test
    void aBrowsersFormPostIsRead() {
        assertThat(first("user=alice&password=s%C3%A9cret+1", "user")).isEqualTo("alice");
        assertThat(first("user=alice&password=s%C3%A9cret+1", "password")).isEqualTo("sécret 1");
        assertThat(first("a=1&user=Zo%C3%AB&user=second", "user")).as("the first of several").isEqualTo("Zoë");
        assertThat(first("us%65r=x", "user")).as("an encoded name").isEqualTo("x");
        assertThat(first("user&x=1", "user")).as("a name without a value").isEmpty();
        assertThat(first("username=x&userx=y", "user")).isNull();
        assertThat(first("", "user")).isNull();
        assertThat(FormFields.first("user=a%2Bb", "user")).as("a query string").isEqualTo("a+b");
        assertThat(FormFields.first((String) null, "user")).isNull();
    }

    @Test
    void theCharsetDecidesWhatBytesMean() {
        byte[] bytes = "user=Zo%EB".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(FormFields.first(bytes, bytes.length, "user", StandardCharsets.ISO_8859_1)).isEqualTo("Zoë");
        assertThat(FormFields.first(bytes, bytes.length, "user", StandardCharsets.UTF_8)).isEqualTo("Zo\uFFFD");
    }

    @Test
    void onlyTheGivenLengthIsRead() {
        byte[] bytes = "user=alice&more=1".getBytes(StandardCharsets.US_ASCII);
        assertThat(FormFields.first(bytes, 8, "user", StandardCharsets.UTF_8)).isEqualTo("ali");
        assertThat(FormFields.first(bytes, 8, "more", StandardCharsets.UTF_8)).isNull();
    }

    @Test
    void everyFieldInOrder() {
        byte[] bytes = "b=2&a=1&b=3&=x&&c".getBytes(StandardCharsets.US_ASCII);
        Map<String, List<String>> all = FormFields.all(bytes, bytes.length, StandardCharsets.UTF_8);
        assertThat(all).containsExactly(Map.entry("b", List.of("2", "3")), Map.entry("a", List.of("1")),
                Map.entry("c", List.of("")));
    }

    @Test
    void malformedEscapesStayAsTheyAre() {
        assertThat(first("user=%&x=%4", "user")).isEqualTo("%");
        assertThat(first("user=%zz%4", "user")).isEqualTo("%zz%4");
        assertThat(first("user=100%", "user")).isEqualTo("100%");
    }

    @Test
    void formTypesAreRecognisedWhateverTheirParameters() {
        assertThat(FormFields.isForm("application/x-www-form-urlencoded")).isTrue();
        assertThat(FormFields.isForm("Application/X-WWW-Form-Urlencoded; charset=UTF-8")).isTrue();
        assertThat(FormFields.isForm("multipart/form-data; boundary=x")).isFalse();
        assertThat(FormFields.isForm("application/json")).isFalse();
        assertThat(FormFields.isForm(null)).isFalse();
    }

    @Test
    void onlyAPostedFormOfKnownModestLengthIsReadAhead() {
        String form = "application/x-www-form-urlencoded";
        assertThat(FormFields.readable("POST", form, 20)).isTrue();
        assertThat(FormFields.readable("POST", form, FormFields.MAX_BODY_BYTES)).isTrue();
        assertThat(FormFields.readable("POST", form, FormFields.MAX_BODY_BYTES + 1)).as("too large").isFalse();
        assertThat(FormFields.readable("POST", form, -1)).as("chunked").isFalse();
        assertThat(FormFields.readable("PUT", form, 20)).as("containers parse POST forms only").isFalse();
        assertThat(FormFields.readable("POST", "text/plain", 20)).isFalse();
    }

    @Test
    void aBodyIsReadToItsDeclaredLengthOrAsFarAsItGoes() {
        byte[] whole = "user=alice".getBytes(StandardCharsets.US_ASCII);
        assertThat(FormFields.read(new java.io.ByteArrayInputStream(whole), whole.length)).isEqualTo(whole);
        assertThat(FormFields.read(new java.io.ByteArrayInputStream(whole), 20)).as("read before: shorter")
                .isEqualTo(whole);
        java.io.InputStream failing = new java.io.InputStream() {
            private int left = 3;

            @Override
            public int read() throws java.io.IOException {
                if (left == 0) {
                    throw new java.io.IOException("client gone");
                }
                left--;
                return 'a';
            }
        };
        assertThat(FormFields.read(failing, 10)).as("what came before the failure").hasSize(3);
    }

    @Test
    void anUnknownOrMissingCharsetFallsBack() {
        assertThat(FormFields.charset(" utf-8 ", StandardCharsets.ISO_8859_1)).isEqualTo(StandardCharsets.UTF_8);
        assertThat(FormFields.charset("no-such-charset", StandardCharsets.ISO_8859_1)).isEqualTo(StandardCharsets.ISO_8859_1);
        assertThat(FormFields.charset("bad name!", StandardCharsets.UTF_8)).isEqualTo(StandardCharsets.UTF_8);
        assertThat(FormFields.charset(null, StandardCharsets.UTF_8)).isEqualTo(StandardCharsets.UTF_8);
    }

    /** Whatever bytes a client posts, the parser answers and never throws. */
    @Test
    void randomBytesNeverThrow() {
        Random random = new Random(36);
        byte[] alphabet = "%&=+aA0fFgz\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        for (int round = 0; round < 20_000; round++) {
            byte[] body = new byte[random.nextInt(40)];
            for (int i = 0; i < body.length; i++) {
                body[i] = random.nextInt(4) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            FormFields.first(body, body.length, "a", StandardCharsets.UTF_8);
            FormFields.all(body, body.length, StandardCharsets.ISO_8859_1);
        }
    }
}
