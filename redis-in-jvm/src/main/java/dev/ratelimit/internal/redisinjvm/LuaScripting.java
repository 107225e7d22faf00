package dev.ratelimit.internal.redisinjvm;

import dev.ratelimit.internal.redisinjvm.InJvmRedis.RedisError;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LoadState;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.compiler.LuaC;
import org.luaj.vm2.lib.PackageLib;
import org.luaj.vm2.lib.StringLib;
import org.luaj.vm2.lib.TableLib;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;
import org.luaj.vm2.lib.jse.JseBaseLib;
import org.luaj.vm2.lib.jse.JseMathLib;

/**
 * Runs the production Lua scripts under LuaJ against a {@link RedisKeyspace}, as Redis 7.0 runs them:
 * {@code KEYS} and {@code ARGV} as globals, {@code redis.call}/{@code redis.pcall} with Redis' type
 * conversions, {@code redis.error_reply}/{@code status_reply}, globals that a script may neither
 * create nor read when undefined, and the reply converted to RESP.
 *
 * <p>Conversions (Redis' documented rules): a command's integer reply is a Lua number, a bulk string
 * a string, a nil bulk {@code false}, an array a table (nils in it {@code false}), a status
 * {@code {ok=...}}, an error raised by {@code redis.call} (as the table {@code {err=...}}) and returned
 * as that table by {@code redis.pcall}. A script's result: a number is an integer reply (truncated
 * toward zero), a string a bulk, {@code true} 1, {@code false} and nil a nil bulk, a table with
 * {@code err} an error, with {@code ok} a status, any other table an array up to its first nil.
 * A number passed to {@code redis.call} is sent as {@code %.17g} (Redis 7.0; integers below 2^53
 * print whole).
 *
 * <p>Redis runs Lua 5.1 and LuaJ is a 5.2; the differences the scripts could meet are bridged:
 * {@code unpack} is {@code table.unpack}, {@code string.format} and {@code tostring} are Lua 5.1's
 * ({@link LuaNumbers}). Not bridged: {@code ..} and LuaJ's own number printing write integral
 * doubles whole where Lua 5.1 writes {@code %.14g} (1e15 as {@code 1e+15}); the scripts never print a
 * number but through {@code string.format}, as their comments require. Numbers are doubles in both.
 */
final class LuaScripting {
    private final RedisKeyspace keyspace;
    private final Globals globals = new Globals();
    /**
     * Each script's bytecode, compiled once per JVM by SHA-1: a prototype is immutable, and compiling
     * the scripts again for every Redis in the JVM was a sixth of a model check's CPU. At most
     * {@value #MAX_PROTOTYPES} (the limiter has some twenty scripts); scripts beyond are compiled per Redis.
     */
    private static final Map<String, Prototype> PROTOTYPES = new ConcurrentHashMap<>();
    private static final int MAX_PROTOTYPES = 256;
    /** Each script bound to this Redis' globals, by SHA-1, as Redis keeps it after the first EVAL. */
    private final Map<String, LuaValue> compiled = new HashMap<>();

    LuaScripting(RedisKeyspace keyspace) {
        this.keyspace = keyspace;
        globals.load(new JseBaseLib());
        globals.load(new PackageLib());
        globals.load(new TableLib());
        globals.load(new StringLib());
        globals.load(new JseMathLib());
        LoadState.install(globals);
        LuaC.install(globals);
        for (String unsafe : new String[] {"package", "require", "dofile", "loadfile", "io", "os", "luajava", "print"}) {
            globals.set(unsafe, LuaValue.NIL);
        }
        globals.set("unpack", globals.get("table").get("unpack"));
        globals.get("string").set("format", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaNumbers.format(args);
            }
        });
        globals.set("tostring", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                return LuaValue.valueOf(LuaNumbers.tostring(args.arg1()));
            }
        });
        LuaTable redis = new LuaTable();
        redis.set("call", new Command(false));
        redis.set("pcall", new Command(true));
        redis.set("error_reply", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue text, LuaValue unused) {
                return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("err"), text.checkstring()});
            }
        });
        redis.set("status_reply", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue text, LuaValue unused) {
                return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("ok"), text.checkstring()});
            }
        });
        globals.set("redis", redis);
        // Redis refuses a script that creates a global or reads one that does not exist.
        LuaTable guard = new LuaTable();
        guard.set(LuaValue.NEWINDEX, new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                throw new LuaError("Attempt to modify a readonly table: script attempted to create global variable '"
                        + args.arg(2).tojstring() + "'");
            }
        });
        guard.set(LuaValue.INDEX, new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs args) {
                throw new LuaError("Script attempted to access nonexistent global variable '" + args.arg(2).tojstring() + "'");
            }
        });
        globals.setmetatable(guard);
    }

    private Prototype compile(String source) {
        try {
            return globals.compilePrototype(new StringReader(source), "@user_script");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs a script. Java strings (keys, arguments) become the bytes Jedis would send: UTF-8.
     *
     * @param script the script's name, for messages: {@code fixed-window.lua}
     * @param sha1 the SHA-1 of {@code source}, as EVALSHA names it
     * @param source the script's text
     * @return the reply in {@link RedisKeyspace}'s form
     * @throws RedisError the script's error reply (raised, returned as {@code {err=...}}, or a runtime error)
     */
    Object run(String script, String sha1, String source, List<String> keys, List<String> args) {
        LuaValue chunk = compiled.get(sha1);
        if (chunk == null) {
            Prototype prototype = PROTOTYPES.get(sha1);
            if (prototype == null) {
                prototype = compile(source);
                if (PROTOTYPES.size() < MAX_PROTOTYPES) {
                    PROTOTYPES.putIfAbsent(sha1, prototype);
                }
            }
            chunk = new LuaClosure(prototype, globals);
            compiled.put(sha1, chunk);
        }
        globals.rawset("KEYS", table(keys));
        globals.rawset("ARGV", table(args));
        try {
            return toReply(chunk.call());
        } catch (LuaError e) {
            LuaValue raised = e.getMessageObject();
            String text = raised != null && raised.istable() && raised.get("err").isstring() ? raised.get("err").tojstring()
                    : "ERR " + e.getMessage();
            throw new RedisError(text + " (script " + script + ")");
        } finally {
            globals.rawset("KEYS", LuaValue.NIL);
            globals.rawset("ARGV", LuaValue.NIL);
        }
    }

    private static LuaTable table(List<String> values) {
        LuaTable table = new LuaTable(values.size(), 0);
        for (int i = 0; i < values.size(); i++) {
            table.rawset(i + 1, LuaValue.valueOf(values.get(i)));
        }
        return table;
    }

    /** Lua's result as Redis replies it. */
    private static Object toReply(LuaValue value) {
        switch (value.type()) {
            case LuaValue.TNIL:
                return null;
            case LuaValue.TBOOLEAN:
                return value.toboolean() ? 1L : null;
            case LuaValue.TNUMBER:
                return (long) value.todouble();
            case LuaValue.TSTRING:
                return bytes(value.checkstring());
            case LuaValue.TTABLE:
                LuaValue err = value.rawget("err");
                if (err.isstring()) {
                    throw new RedisError(err.tojstring());
                }
                LuaValue ok = value.rawget("ok");
                if (ok.isstring()) {
                    return new Status(ok.tojstring());
                }
                List<Object> array = new ArrayList<>();
                for (int i = 1; !value.rawget(i).isnil(); i++) {
                    LuaValue element = value.rawget(i);
                    if (element.istable() && element.rawget("err").isstring()) {
                        array.add(new RedisError(element.rawget("err").tojstring()));
                    } else {
                        array.add(toReply(element));
                    }
                }
                return array;
            default:
                // Functions, userdata and threads have no reply: Redis answers a nil bulk.
                return null;
        }
    }

    /** A reply of the keyspace as Redis hands it to Lua. */
    private static LuaValue toLua(Object reply) {
        if (reply == null) {
            return LuaValue.FALSE;
        }
        if (reply instanceof Long) {
            return LuaValue.valueOf((double) (Long) reply);
        }
        if (reply instanceof String) {
            return LuaString.valueUsing(RedisKeyspace.raw((String) reply));
        }
        if (reply instanceof Status) {
            return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("ok"), LuaValue.valueOf(((Status) reply).text())});
        }
        if (reply instanceof RedisError) {
            return errorTable((RedisError) reply);
        }
        List<?> list = (List<?>) reply;
        LuaTable table = new LuaTable(list.size(), 0);
        for (int i = 0; i < list.size(); i++) {
            table.rawset(i + 1, toLua(list.get(i)));
        }
        return table;
    }

    private static LuaValue errorTable(RedisError error) {
        return LuaValue.tableOf(new LuaValue[] {LuaValue.valueOf("err"), LuaValue.valueOf(error.getMessage())});
    }

    private static String bytes(LuaString text) {
        return new String(text.m_bytes, text.m_offset, text.m_length, StandardCharsets.ISO_8859_1);
    }

    /** {@code redis.call} or, raising nothing, {@code redis.pcall}. */
    private final class Command extends VarArgFunction {
        private final boolean protectedCall;

        Command(boolean protectedCall) {
            this.protectedCall = protectedCall;
        }

        @Override
        public Varargs invoke(Varargs args) {
            RedisError failure;
            if (args.narg() == 0) {
                failure = new RedisError("ERR Please specify at least one argument for this redis lib call");
            } else {
                List<String> argv = new ArrayList<>(args.narg());
                failure = null;
                for (int i = 1; i <= args.narg(); i++) {
                    LuaValue arg = args.arg(i);
                    if (arg.type() == LuaValue.TNUMBER) {
                        argv.add(LuaNumbers.g(arg.todouble(), 17));
                    } else if (arg.type() == LuaValue.TSTRING) {
                        argv.add(bytes(arg.checkstring()));
                    } else {
                        failure = new RedisError("ERR Lua redis lib command arguments must be strings or integers");
                        break;
                    }
                }
                if (failure == null) {
                    try {
                        return toLua(keyspace.execute(argv));
                    } catch (RedisError refused) {
                        failure = refused;
                    }
                }
            }
            if (protectedCall) {
                return errorTable(failure);
            }
            throw new LuaError(errorTable(failure));
        }
    }
}
