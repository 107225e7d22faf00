package dev.ratelimit;

import dev.ratelimit.internal.support.ConfigNames;

/** How a decision travels to Redis. */
public enum Transport {
    /** One EVALSHA of the algorithm's Lua script: every algorithm, any number of rules. The default. */
    LUA("lua"),
    /**
     * MULTI/EXEC instead of scripts, for Redis users that may not run them and servers where
     * scripting is disabled. Supports a single {@code fixed-window} rule (one MULTI/EXEC; a denied
     * request's permits stay counted until the window ends, so with mixed costs a denied large
     * request can deny smaller ones in the same window) or a single {@code sliding-log} rule (WATCH,
     * then MULTI/EXEC; exact). Live {@link Overrides} are read and written without scripts too,
     * one round trip each.
     */
    TRANSACTION("transaction");

    private final String configName;

    Transport(String configName) {
        this.configName = configName;
    }

    /** The name used in configuration: {@code lua} or {@code transaction}. */
    public String configName() {
        return configName;
    }

    /**
     * @throws IllegalArgumentException if the name is neither {@code lua} nor {@code transaction}
     */
    public static Transport fromConfigName(String name) {
        return ConfigNames.find("transport", values(), Transport::configName, name);
    }

    @Override
    public String toString() {
        return configName;
    }
}
