package dev.ratelimit.internal.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;

/**
 * A {@link WatchedSession} over an empty sliding log, for the unit tests of the transaction
 * transport: TIME answers a fixed instant, WATCH and UNWATCH OK, every read an empty log. What EXEC
 * answers is the subclass's; {@link #seen} hears every command sent, reads and commits alike.
 */
abstract class EmptyLogSession implements WatchedSession {
    @Override
    public List<Object> read(List<CommandArguments> sent) {
        List<Object> replies = new ArrayList<>();
        for (CommandArguments command : sent) {
            seen(command);
            if (command.getCommand() == Protocol.Command.TIME) {
                replies.add(Arrays.<Object>asList(bytes("1700000000"), bytes("250000")));
            } else if (command.getCommand() == Protocol.Command.WATCH
                    || command.getCommand() == Protocol.Command.UNWATCH) {
                replies.add("OK");
            } else {
                replies.add(Collections.emptyList());
            }
        }
        return replies;
    }

    /** A command sent, read or committed; nothing by default. */
    void seen(CommandArguments command) {
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
