package dev.ratelimit.jaxrs;

import dev.ratelimit.internal.http.settings.Settings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/** A {@link RateLimited} annotation as settings: the attributes it sets, under the settings' names. */
final class AnnotationSettings {
    private AnnotationSettings() {
    }

    /** The attributes that are set; an unset one leaves the setting to the defaults. */
    static Map<String, String> of(RateLimited annotation) {
        Map<String, String> settings = new LinkedHashMap<>();
        putNumber(settings, Settings.LIMIT.name(), annotation.limit());
        putText(settings, Settings.WINDOW.name(), annotation.window());
        putText(settings, Settings.CALENDAR.name(), annotation.calendar());
        putText(settings, Settings.TIME_ZONE.name(), annotation.timeZone());
        putText(settings, Settings.ALGORITHM.name(), annotation.algorithm());
        putNumber(settings, Settings.BURST.name(), annotation.burst());
        putNumber(settings, Settings.COST.name(), annotation.cost());
        putText(settings, Settings.PENALTY.name(), annotation.penalty());
        putText(settings, Settings.TIERS.name(), annotation.tiers());
        putText(settings, Settings.TIER_FROM.name(), annotation.tierFrom());
        putText(settings, Settings.EXEMPT_ROLES.name(), annotation.exemptRoles());
        putText(settings, Settings.COUNT_STATUS.name(), annotation.countStatus());
        if (annotation.chargeAfter()) {
            // true turns it on; false is the default, which leaves the webapp-wide setting in force.
            settings.put(Settings.CHARGE_AFTER.name(), "true");
        }
        putText(settings, Settings.KEY.name(), annotation.key());
        putText(settings, Settings.POLICY_NAME.name(), annotation.policy());
        return settings;
    }

    /** How messages name an attribute: {@code @RateLimited(window) on OrdersResource.create}. */
    static Function<String, String> labels(String where) {
        return name -> "@RateLimited(" + (Settings.POLICY_NAME.name().equals(name) ? "policy" : name) + ") on "
                + where;
    }

    private static void putNumber(Map<String, String> settings, String name, long value) {
        if (value != RateLimited.UNSET) {
            settings.put(name, Long.toString(value));
        }
    }

    private static void putText(Map<String, String> settings, String name, String value) {
        if (!value.isEmpty()) {
            settings.put(name, value);
        }
    }
}
