package dev.ratelimit.internal.scripts;

import dev.ratelimit.Algorithm;

/** Lets tests outside the package ask for a script's SHA-1. */
public final class LuaScriptAccess {
    private LuaScriptAccess() {
    }

    public static String sha1(Algorithm algorithm) {
        return LuaEvaluator.script(algorithm).sha1();
    }
}
