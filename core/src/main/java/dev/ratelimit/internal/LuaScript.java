package dev.ratelimit.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script shipped as a resource: read once, identified by its SHA-1 so that every call is an
 * EVALSHA and the source only travels when Redis answers NOSCRIPT.
 */
public final class LuaScript {
    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
    }

    /** The part every limiter script shares, appended to each by {@link #limiter(String)}. */
    private static final String LIMITER_DRIVER = "limiter-driver";
    /** The clock every limiter script reads, put before each by {@link #limiter(String)}. */
    private static final String LIMITER_CLOCK = "limiter-clock";

    /**
     * Loads {@code /dev/ratelimit/scripts/<name>.lua} from the class path.
     *
     * @throws IllegalStateException if the resource is missing: the jar is broken
     */
    public static LuaScript load(String name) {
        return new LuaScript(name, read(name));
    }

    /**
     * Loads an algorithm's script between {@code limiter-clock.lua} (its {@code clock()}) and
     * {@code limiter-driver.lua}, which runs its check() and commit() for every rule. Redis scripts cannot include one another, so the two are joined
     * here, once, and Redis knows the whole by one SHA-1.
     *
     * @throws IllegalStateException if a resource is missing: the jar is broken
     */
    public static LuaScript limiter(String algorithm) {
        return new LuaScript(algorithm, read(LIMITER_CLOCK) + "\n" + read(algorithm) + "\n" + read(LIMITER_DRIVER));
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
            StringBuilder hex = new StringBuilder(40);
            for (byte b : digest) {
                hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-1", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}
