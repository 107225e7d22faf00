package dev.ratelimit.internal.support;

/**
 * A bad argument or setting, with the name of what was bad kept apart from the sentence, so that
 * a caller who knows where the value came from (an init-param, an annotation attribute) can say
 * so without reading the message: {@code window must be ...} becomes
 * {@code init-param 'window' must be ...}. To everyone else it is a plain
 * {@link IllegalArgumentException} with the whole sentence as its message.
 */
public final class BadArgument extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String argument;
    private final String predicate;

    /** When {@code message} reads {@code <argument> must ...}, its part from {@code must} on takes another subject. */
    public BadArgument(String argument, String message) {
        this(argument, message, message.startsWith(argument + " must ") ? message.substring(argument.length() + 1)
                : null);
    }

    private BadArgument(String argument, String message, String predicate) {
        super(message);
        this.argument = argument;
        this.predicate = predicate;
    }

    /**
     * A sentence {@code <argument> <predicate>} whose predicate fits any subject, e.g.
     * {@code refers to ${env:X}, which is not set}.
     */
    public static BadArgument predicate(String argument, String predicate) {
        return new BadArgument(argument, argument + " " + predicate, predicate);
    }

    public String argument() {
        return argument;
    }

    /**
     * The message with another subject for the argument, e.g. {@code init-param 'window'}:
     * {@code <subject> must be ...}, or {@code <subject>: <message>} when the sentence has its own shape.
     */
    public String messageAbout(String subject) {
        return predicate != null ? subject + " " + predicate : subject + ": " + getMessage();
    }
}
