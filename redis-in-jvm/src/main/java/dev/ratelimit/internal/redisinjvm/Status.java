package dev.ratelimit.internal.redisinjvm;

/** A status reply of {@link RedisKeyspace}, such as OK. */
final class Status {
    private final String text;

    Status(String text) {
        this.text = text;
    }

    String text() {
        return text;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Status && ((Status) other).text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
