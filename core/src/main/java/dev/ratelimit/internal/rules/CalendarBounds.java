package dev.ratelimit.internal.rules;

import dev.ratelimit.CalendarPeriod;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.function.LongSupplier;

/**
 * The period starts a calendar rule's script chooses from: the previous, current, next and
 * following period by this JVM's clock, as {@code "b0,b1,b2,b3"} in microseconds. The script
 * picks the period that holds Redis' own time, so the JVM's clock only has to be right to within a
 * period. Recomputed when this JVM's clock leaves the current period (time zone rules, daylight
 * saving included, are Java's); between those moments a decision costs one volatile read.
 */
public final class CalendarBounds {
    private final CalendarPeriod period;
    private final ZoneId zone;
    private final LongSupplier epochMillis;
    private volatile Bounds bounds;

    private static final class Bounds {
        final long currentStartMillis;
        final long nextStartMillis;
        final String text;

        Bounds(long currentStartMillis, long nextStartMillis, String text) {
            this.currentStartMillis = currentStartMillis;
            this.nextStartMillis = nextStartMillis;
            this.text = text;
        }
    }

    public CalendarBounds(CalendarPeriod period, ZoneId zone, LongSupplier epochMillis) {
        this.period = period;
        this.zone = zone;
        this.epochMillis = epochMillis;
        this.bounds = compute(epochMillis.getAsLong());
    }

    /** {@code "b0,b1,b2,b3"}: four consecutive period starts in microseconds, the second holding now. */
    public String text() {
        return holdingNow(epochMillis.getAsLong()).text;
    }

    /** Milliseconds from now until the next period starts: the rest of the period holding now. */
    public long untilNextStartMillis() {
        long now = epochMillis.getAsLong();
        return holdingNow(now).nextStartMillis - now;
    }

    private Bounds holdingNow(long nowMillis) {
        Bounds current = bounds;
        if (nowMillis < current.currentStartMillis || nowMillis >= current.nextStartMillis) {
            current = compute(nowMillis);
            bounds = current;
        }
        return current;
    }

    private Bounds compute(long nowMillis) {
        ZonedDateTime current = period.start(Instant.ofEpochMilli(nowMillis).atZone(zone));
        ZonedDateTime next = period.next(current);
        String text = micros(period.previous(current)) + "," + micros(current) + "," + micros(next) + ","
                + micros(period.next(next));
        return new Bounds(current.toInstant().toEpochMilli(), next.toInstant().toEpochMilli(), text);
    }

    private static long micros(ZonedDateTime at) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, at);
    }
}
