package dev.ratelimit.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodType;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The javax jars are compiled against Servlet 3.1, and Tomcat 7 runs them on Servlet 3.0: there a
 * call to a method 3.0 lacks is a {@code NoSuchMethodError} when it runs, a 500, and a class that
 * names a 3.0-less type where the verifier must load it fails to load at all. The smoke suite
 * proves on a real Tomcat 7 the paths it takes; this holds every other path: each reference of the
 * library's javax classes into {@code javax.servlet} is looked up in Tomcat 7's own servlet API, and
 * those it lacks must be the few known to be safe, each for its reason. A new one fails here with
 * the class that makes it: call it through {@code ContainerApi}, or say here why 3.0 never runs it.
 */
class Servlet30CallsIT {
    /** The references into javax.servlet that Servlet 3.0 lacks, allowed where they stand, and why. */
    private static final Map<String, Set<String>> KNOWN = Map.of(
            // Asked only where the container's API declares it; else getContentLength.
            "dev.ratelimit.servlet.ContainerApi", Set.of("javax/servlet/http/HttpServletRequest.getContentLengthLong:()J"),
            // The 3.1 methods of the stream that gives a form body back: only a 3.1 application calls them.
            "dev.ratelimit.servlet.FormPostRequest$Replay", Set.of("javax/servlet/ServletInputStream.isFinished:()Z",
                    "javax/servlet/ServletInputStream.isReady:()Z",
                    "javax/servlet/ServletInputStream.setReadListener:(Ljavax/servlet/ReadListener;)V"),
            // Loaded only by Replay.setReadListener.
            "dev.ratelimit.servlet.FormPostRequest$ReadAhead", Set.of("javax/servlet/ReadListener",
                    "javax/servlet/ReadListener.onDataAvailable:()V", "javax/servlet/ReadListener.onAllDataRead:()V",
                    "javax/servlet/ReadListener.onError:(Ljava/lang/Throwable;)V"));
    /** A constant-pool line of {@code javap -v}: a class, method or field reference and what it names. */
    private static final Pattern REFERENCE = Pattern.compile(
            "^\\s*#\\d+ = (Class|Methodref|InterfaceMethodref|Fieldref)\\s+\\S+\\s+// (.+)$");

    @Test
    void theJavaxJarsCallNothingServlet30LacksButWhatIsKnownSafe() throws Exception {
        try (URLClassLoader servlet30 = servlet30Api()) {
            for (Path jar : List.of(jar(webappLib(), "ratelimit-filter-javax-"), jar(jaxrsJavax(), "ratelimit-jaxrs-javax-"),
                    jar(allInOne(), "ratelimit-all-javax-"))) {
                Map<String, Set<String>> lacking = lackingReferences(jar, servlet30);
                Map<String, Set<String>> expected = new TreeMap<>(KNOWN);
                expected.keySet().retainAll(classesOf(jar));
                assertThat(lacking).as("references of %s that Tomcat 7's servlet API lacks: each one a "
                        + "NoSuchMethodError (a 500) where it runs on Servlet 3.0; call it through ContainerApi", jar)
                        .isEqualTo(expected);
            }
        }
    }

    /**
     * Every class of the filter jar loads and links against Tomcat 7's API with the webapp's other
     * jars, as Tomcat's webapp class loader would load it, but the listener only a 3.1 container
     * asks for; so does every class of the JAX-RS jar, beside the JAX-RS API.
     */
    @Test
    void everyClassOfTheJavaxJarsLinksOnServlet30() throws Exception {
        List<URL> webapp = new ArrayList<>();
        for (Path lib : List.of(webappLib(), jaxrsJavax())) {
            try (DirectoryStream<Path> jars = Files.newDirectoryStream(lib, "*.jar")) {
                for (Path jar : jars) {
                    String name = jar.getFileName().toString();
                    if (!name.startsWith("ratelimit-filter-0")) {
                        webapp.add(jar.toUri().toURL());
                    }
                }
            }
        }
        try (URLClassLoader servlet30 = servlet30Api();
                URLClassLoader app = new URLClassLoader(webapp.toArray(URL[]::new), servlet30)) {
            List<String> failed = new ArrayList<>();
            for (Path jar : List.of(jar(webappLib(), "ratelimit-filter-javax-"), jar(jaxrsJavax(), "ratelimit-jaxrs-javax-"))) {
                for (String type : classesOf(jar)) {
                    if (type.equals("dev.ratelimit.servlet.FormPostRequest$ReadAhead")) {
                        continue;
                    }
                    try {
                        Class.forName(type, true, app);
                    } catch (LinkageError e) {
                        StringWriter trace = new StringWriter();
                        e.printStackTrace(new PrintWriter(trace));
                        failed.add(type + ": " + trace);
                    }
                }
            }
            assertThat(failed).as("classes that do not load on Servlet 3.0").isEmpty();
            assertThatThrownBy(() -> Class.forName("dev.ratelimit.servlet.FormPostRequest$ReadAhead", true, app))
                    .as("the one class that needs Servlet 3.1, loaded only when a 3.1 application sets a ReadListener")
                    .isInstanceOf(NoClassDefFoundError.class).hasMessageContaining("javax/servlet/ReadListener");
        }
    }

    /** For each class of {@code jar} under dev.ratelimit, its references into javax.servlet that {@code api} lacks. */
    private static Map<String, Set<String>> lackingReferences(Path jar, ClassLoader api) {
        List<String> classes = classesOf(jar);
        List<String> args = new ArrayList<>(List.of("-v", "-cp", jar.toString()));
        args.addAll(classes);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = ToolProvider.findFirst("javap").orElseThrow()
                .run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
        assertThat(exit).as("javap " + jar + ": " + err).isZero();
        Map<String, Set<String>> lacking = new TreeMap<>();
        String current = null;
        for (String line : out.toString().split("\n")) {
            if (line.startsWith("Classfile ")) {
                String file = line.substring(line.lastIndexOf("!/") + 2, line.length() - ".class".length());
                current = file.replace('/', '.');
                continue;
            }
            Matcher reference = REFERENCE.matcher(line);
            if (current == null || !reference.matches()) {
                continue;
            }
            // javap quotes some names ("<init>", "[Ljavax/servlet/http/Cookie;").
            String named = reference.group(2).replace("\"", "");
            if (reference.group(1).equals("Class")) {
                // Of an array class, its element type is what must exist.
                named = named.replaceFirst("^\\[+L(.*);$", "$1");
            }
            if (named.startsWith("javax/servlet/")) {
                if (!resolves(reference.group(1), named, api)) {
                    lacking.computeIfAbsent(current, c -> new TreeSet<>()).add(named);
                }
            }
        }
        return lacking;
    }

    /** Whether {@code named} ({@code a/B} or {@code a/B.member:descriptor}) is in {@code api}, inherited members too. */
    private static boolean resolves(String kind, String named, ClassLoader api) {
        int dot = named.indexOf('.');
        Class<?> owner;
        try {
            owner = Class.forName((dot < 0 ? named : named.substring(0, dot)).replace('/', '.'), false, api);
        } catch (ClassNotFoundException | LinkageError missing) {
            return false;
        }
        if (dot < 0) {
            return true;
        }
        String name = named.substring(dot + 1, named.indexOf(':'));
        String descriptor = named.substring(named.indexOf(':') + 1);
        List<Class<?>> types = new ArrayList<>();
        collect(owner, types);
        for (Class<?> type : types) {
            try {
                if (kind.equals("Fieldref")) {
                    for (Field field : type.getDeclaredFields()) {
                        if (field.getName().equals(name)) {
                            return true;
                        }
                    }
                    continue;
                }
                List<Executable> members = new ArrayList<>(List.of(type.getDeclaredMethods()));
                members.addAll(List.of(type.getDeclaredConstructors()));
                for (Executable member : members) {
                    String memberName = member instanceof Method ? member.getName() : "<init>";
                    Class<?> returns = member instanceof Method ? ((Method) member).getReturnType() : void.class;
                    if (memberName.equals(name) && MethodType.methodType(returns, member.getParameterTypes())
                            .toMethodDescriptorString().equals(descriptor)) {
                        return true;
                    }
                }
            } catch (LinkageError unloadable) {
                return false;
            }
        }
        return false;
    }

    /** {@code type}, its superclasses and every interface they have. */
    private static void collect(Class<?> type, List<Class<?>> into) {
        if (type == null || into.contains(type)) {
            return;
        }
        into.add(type);
        collect(type.getSuperclass(), into);
        for (Class<?> each : type.getInterfaces()) {
            collect(each, into);
        }
    }

    /** The classes of {@code jar} under dev.ratelimit (an all-in-one jar's shaded libraries left out). */
    private static List<String> classesOf(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(entry -> entry.getName())
                    .filter(name -> name.startsWith("dev/ratelimit/") && name.endsWith(".class")
                            && !name.startsWith("dev/ratelimit/shaded/") && !name.endsWith("module-info.class"))
                    .filter(name -> name.startsWith("dev/ratelimit/servlet/") || name.startsWith("dev/ratelimit/jaxrs/"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Tomcat 7's own servlet API, alone: the JDK's classes beside it, no other javax.servlet. */
    private static URLClassLoader servlet30Api() throws MalformedURLException {
        Path api = ServerLine.TOMCAT_7.home().resolve("lib/servlet-api.jar");
        return new URLClassLoader(new URL[] {api.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
    }

    private static Path jar(Path dir, String prefix) throws IOException {
        List<Path> found = LegacyApp.jars(dir, prefix + "0*.jar");
        assertThat(found).as(prefix + " in " + dir).hasSize(1);
        return found.get(0);
    }

    private static Path webappLib() {
        return Path.of(System.getProperty("ratelimit.smoke.webappLib", "target/webapp-lib"));
    }

    private static Path jaxrsJavax() {
        return Path.of(System.getProperty("ratelimit.smoke.jaxrsJavax", "target/jaxrs-javax"));
    }

    private static Path allInOne() {
        return Path.of(System.getProperty("ratelimit.smoke.allInOne", "target/all-in-one"));
    }
}
