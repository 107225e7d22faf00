package dev.ratelimit.internal.jmx;

import java.lang.reflect.Method;
import java.security.AccessController;
import java.security.Principal;
import java.util.Set;
import java.util.TreeSet;
import javax.security.auth.Subject;

/**
 * The user a JMX connector authenticated for the operation running now, for the origin an
 * operator's change is logged and stored with. A remote connector with authentication runs each
 * operation as its {@link Subject}; a local call (jconsole on the same host, code) has none.
 */
final class JmxCaller {
    /** The longest name kept: it goes into logs and into the overrides hash. */
    static final int MAX_NAME_LENGTH = 64;

    private JmxCaller() {
    }

    /**
     * The principals' names of the current Subject, sorted and joined with {@code ,}, printable
     * characters only and at most {@link #MAX_NAME_LENGTH}; null when there is no Subject.
     */
    static String name() {
        Subject subject = current();
        if (subject == null || subject.getPrincipals().isEmpty()) {
            return null;
        }
        Set<String> names = new TreeSet<>();
        for (Principal principal : subject.getPrincipals()) {
            names.add(String.valueOf(principal.getName()));
        }
        StringBuilder name = new StringBuilder();
        for (char c : String.join(",", names).toCharArray()) {
            if (name.length() == MAX_NAME_LENGTH) {
                break;
            }
            // A principal's name is the connector's to choose: nothing in it may break a log line.
            name.append(c < ' ' || c == 0x7f || c == '\'' ? '?' : c);
        }
        return name.toString();
    }

    /**
     * {@code Subject.current()} where it exists (Java 18 and later: on 23 and later the older way
     * throws), else the Subject of the access control context, as Java 8 to 17 know it.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private static Subject current() {
        try {
            Method current = Subject.class.getMethod("current");
            return (Subject) current.invoke(null);
        } catch (NoSuchMethodException e) {
            try {
                return Subject.getSubject(AccessController.getContext());
            } catch (RuntimeException unsupported) {
                return null;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
