package dev.ratelimit.internal.http.settings;

import dev.ratelimit.internal.support.BadArgument;
import dev.ratelimit.internal.support.Immutable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** Which requests a policy limits at all: its {@code methods} and {@code excludePaths}. Immutable. */
final class RequestMatcher {
    private static final Pattern METHOD = Pattern.compile("[A-Za-z]+");

    private final Set<String> methods;
    private final Set<String> excludedPaths;
    private final List<String> excludedPrefixes;
    private final String description;

    /**
     * @param methods upper-case methods; empty for all
     * @param excludePaths exact paths, and prefixes written {@code /static/*}
     */
    RequestMatcher(List<String> methods, List<String> excludePaths) {
        Set<String> limited = new LinkedHashSet<>(methods);
        if (limited.contains("GET")) {
            // HEAD runs the GET handler (HttpServlet.doHead, JAX-RS): limiting GET alone would leave it open.
            limited.add("HEAD");
        }
        this.methods = Immutable.setOf(limited);
        Set<String> exact = new LinkedHashSet<>();
        List<String> prefixes = new ArrayList<>();
        for (String path : excludePaths) {
            if (path.endsWith("/*")) {
                prefixes.add(path.substring(0, path.length() - 2));
            } else {
                exact.add(path);
            }
        }
        this.excludedPaths = exact;
        this.excludedPrefixes = Immutable.copyOf(prefixes);
        this.description = "methods " + (methods.isEmpty() ? "all" : String.join(",", methods)) + ", excludePaths "
                + (excludePaths.isEmpty() ? "none" : describe(exact, prefixes));
    }

    private static String describe(Set<String> exact, List<String> prefixes) {
        List<String> all = new ArrayList<>(exact);
        prefixes.forEach(prefix -> all.add(prefix + "/*"));
        return String.join(",", all);
    }

    /** Whether a request with this method and path (without the context path) is limited. */
    boolean matches(String method, String path) {
        if (!methods.isEmpty() && !methods.contains(method)) {
            return false;
        }
        if (excludedPaths.contains(path)) {
            return false;
        }
        for (String prefix : excludedPrefixes) {
            if (path.startsWith(prefix) && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/')) {
                return false;
            }
        }
        return true;
    }

    /** {@code methods POST,PUT, excludePaths /health,/static/*}: for the startup log. */
    @Override
    public String toString() {
        return description;
    }

    /** {@code methods}: HTTP methods separated by commas, upper-cased, each once. */
    static List<String> methods(String text) {
        List<String> methods = new ArrayList<>();
        for (String method : SettingText.list(text)) {
            if (!METHOD.matcher(method).matches()) {
                throw new BadArgument("methods", "methods must list HTTP methods such as GET,POST, but '" + method
                        + "' in '" + text + "' is not one");
            }
            String upper = method.toUpperCase(Locale.ROOT);
            if (!methods.contains(upper)) {
                methods.add(upper);
            }
        }
        return Immutable.copyOf(methods);
    }

    /** {@code excludePaths}: paths starting with {@code /}, a prefix written {@code /static/*}. */
    static List<String> paths(String text) {
        List<String> paths = SettingText.list(text);
        for (String path : paths) {
            String stem = path.endsWith("/*") ? path.substring(0, path.length() - 2) : path;
            if (!path.startsWith("/") || stem.contains("*")) {
                throw new BadArgument("excludePaths", "excludePaths must list paths starting with '/', optionally "
                        + "ending in '/*', but '" + path + "' in '" + text + "' is not one");
            }
        }
        return paths;
    }
}
