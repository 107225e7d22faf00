package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.support.BadArgument;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${env:NAME}}, {@code ${env:NAME:default}} and {@code ${sys:name}} in setting values, so
 * one WAR can take its Redis address and limits from the server it runs on. Nothing else is a
 * placeholder: {@code ${jndi:...}} and the like are refused, never looked up.
 *
 * <p>The default follows the first colon after the name. The shell's {@code ${env:NAME:-default}}
 * is read the same way, but only Jetty passes it on: Tomcat replaces every {@code ${…:-…}} in
 * web.xml with its default before a filter sees it (it looks up system properties, never the
 * environment), so on Tomcat that form always yields the default. {@code :default} it leaves alone.
 */
final class Placeholders {
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");

    private final Function<String, String> environment;
    private final Function<String, String> systemProperties;

    Placeholders(Function<String, String> environment, Function<String, String> systemProperties) {
        this.environment = environment;
        this.systemProperties = systemProperties;
    }

    /**
     * @param setting whose value it is, for messages
     * @throws BadArgument for a placeholder of another kind, or one that is unset and has no default
     */
    String resolve(String setting, String raw) {
        if (raw.indexOf('$') < 0) {
            return raw;
        }
        Matcher matcher = PLACEHOLDER.matcher(raw);
        StringBuffer out = new StringBuffer();
        while (matcher.find()) {
            String body = matcher.group(1);
            int colon = body.indexOf(':');
            String source = colon < 0 ? "" : body.substring(0, colon);
            String rest = colon < 0 ? "" : body.substring(colon + 1);
            int separator = rest.indexOf(':');
            String key = separator < 0 ? rest : rest.substring(0, separator);
            String fallback = separator < 0 ? null : rest.substring(separator + 1);
            if (fallback != null && fallback.startsWith("-")) {
                fallback = fallback.substring(1);
            }
            String value;
            if ("env".equals(source) && !key.isEmpty()) {
                value = environment.apply(key);
            } else if ("sys".equals(source) && !key.isEmpty()) {
                value = systemProperties.apply(key);
            } else {
                throw BadArgument.predicate(setting, "has the placeholder '" + matcher.group()
                        + "', but placeholders must be ${env:NAME}, ${env:NAME:default} or ${sys:name}");
            }
            if (value == null) {
                value = fallback;
            }
            if (value == null) {
                throw BadArgument.predicate(setting, "refers to " + matcher.group() + ", which is not set; set it "
                        + "or give a default: ${" + source + ":" + key + ":value}");
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        matcher.appendTail(out);
        return out.toString();
    }
}
