package dev.ratelimit;

import dev.ratelimit.internal.support.ConfigNames;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.time.temporal.TemporalAdjusters;
import java.util.function.UnaryOperator;

/**
 * A calendar period a quota counts in, instead of a fixed window: a day, an ISO week (from Monday)
 * or a month, in a time zone. Periods start at midnight local time (or the first instant after it,
 * when a daylight-saving change skips midnight), so a day lasts 23 to 25 hours and a month 28 to
 * 31 days.
 */
public enum CalendarPeriod {
    /** From midnight to midnight. */
    DAY("day", Duration.ofDays(1), Duration.ofHours(25), date -> date, first -> first.plusDays(1)),
    /** From Monday, midnight, for seven days. */
    WEEK("week", Duration.ofDays(7), Duration.ofDays(7).plusHours(1),
            date -> date.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)), first -> first.plusWeeks(1)),
    /** From the first of the month, midnight. */
    MONTH("month", Duration.ofDays(30), Duration.ofDays(31).plusHours(1), date -> date.withDayOfMonth(1),
            first -> first.plusMonths(1));

    private final String configName;
    private final Duration usual;
    private final Duration longest;
    /** The first day of the period that holds a date. */
    private final UnaryOperator<LocalDate> firstDay;
    /** The first day of the next period, from a period's first day. */
    private final UnaryOperator<LocalDate> nextFirstDay;

    CalendarPeriod(String configName, Duration usual, Duration longest, UnaryOperator<LocalDate> firstDay,
            UnaryOperator<LocalDate> nextFirstDay) {
        this.configName = configName;
        this.usual = usual;
        this.longest = longest;
        this.firstDay = firstDay;
        this.nextFirstDay = nextFirstDay;
    }

    /** {@code day}, {@code week} or {@code month}. */
    public String configName() {
        return configName;
    }

    /** Its usual length, for display: a day of 24 hours, a week of 7 days, a month of 30 days. */
    public Duration usual() {
        return usual;
    }

    /** The longest such a period can be (a 25-hour day, a 31-day month with a DST change): a rule's window. */
    public Duration longest() {
        return longest;
    }

    /** The start of the period holding {@code at}, in {@code at}'s zone. */
    public ZonedDateTime start(ZonedDateTime at) {
        return firstDay.apply(at.toLocalDate()).atStartOfDay(at.getZone());
    }

    /** The start of the period after the one that starts at {@code start}. */
    public ZonedDateTime next(ZonedDateTime start) {
        return nextFirstDay.apply(start.toLocalDate()).atStartOfDay(start.getZone());
    }

    /** The start of the period before the one that starts at {@code start}. */
    public ZonedDateTime previous(ZonedDateTime start) {
        return start(start.minusNanos(1));
    }

    /**
     * @throws IllegalArgumentException if the name is not {@code day}, {@code week} or {@code month}
     */
    public static CalendarPeriod fromConfigName(String name) {
        return ConfigNames.find("calendar", values(), CalendarPeriod::configName, name);
    }

    @Override
    public String toString() {
        return configName;
    }
}
