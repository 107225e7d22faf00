package dev.ratelimit.internal.redis;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script shipped as a resource: read once, identified by its SHA-1 so that every call is an
 * EVALSHA and the source only travels when Redis answers NOSCRIPT.
 */
public final class LuaScript {
    private final String name;
    private final String source;
    private final String sha1;
    /** A limiter script's form deciding several one-rule decisions at once; null for other scripts. */
    private final LuaScript batchForm;
    /** A limiter script's arguments per rule; 0 for other scripts. */
    private final int argsPerRule;
    /** What a failure says the call was doing: built once, not for every call. */
    final String running;

    private LuaScript(String name, String source) {
        this(name, source, null, 0);
    }

    private LuaScript(String name, String source, LuaScript batchForm, int argsPerRule) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
        this.batchForm = batchForm;
        this.argsPerRule = argsPerRule;
        this.running = "running " + name + ".lua";
    }

    private static final Pattern ARGS_PER_RULE = Pattern.compile("(?m)^local ARGS_PER_RULE = (\\d+)$");

    /** Loads {@code /dev/ratelimit/scripts/<name>.lua} from the class path; a missing one throws: the jar is broken. */
    public static LuaScript load(String name) {
        return new LuaScript(name, read(name));
    }

    /**
     * Loads an algorithm's script after {@code limiter-penalty.lua} (the call's mode, the penalty box)
     * and {@code limiter-clock.lua} (its {@code clock()}), and before
     * {@code limiter-driver.lua}, which runs its check() and commit() for every rule; its batch form
     * has {@code limiter-batch.lua} instead of the driver, to run several independent one-rule
     * decisions. Redis scripts cannot include one another, so the parts are joined here, once, and
     * Redis knows the whole by one SHA-1.
     */
    public static LuaScript limiter(String algorithm) {
        String clockAndAlgorithm = read("limiter-penalty") + "\n" + read("limiter-clock") + "\n" + read(algorithm) + "\n";
        Matcher argsPerRule = ARGS_PER_RULE.matcher(clockAndAlgorithm);
        if (!argsPerRule.find()) {
            throw new IllegalStateException("Lua script " + algorithm + ".lua declares no ARGS_PER_RULE");
        }
        LuaScript batch = new LuaScript(algorithm + " batch", clockAndAlgorithm + read("limiter-batch"));
        return new LuaScript(algorithm, clockAndAlgorithm + read("limiter-driver"), batch,
                Integer.parseInt(argsPerRule.group(1)));
    }

    /** The form running several independent one-rule decisions ({@code limiter-batch.lua}); null but for limiters. */
    LuaScript batchForm() {
        return batchForm;
    }

    /** A limiter script's arguments per rule after ARGV[1]; 0 for a script that is no limiter's. */
    int argsPerRule() {
        return argsPerRule;
    }

    private static String read(String name) {
        String path = "/dev/ratelimit/scripts/" + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + path + " is missing from the class path");
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                bytes.write(buffer, 0, n);
            }
            return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Lua script " + path, e);
        }
    }

    public String source() {
        return source;
    }

    /** The SHA-1 Redis knows the script by, computed here so that no SCRIPT LOAD is needed up front. */
    public String sha1() {
        return sha1;
    }

    private static String sha1Hex(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return String.format("%040x", new BigInteger(1, digest));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}
