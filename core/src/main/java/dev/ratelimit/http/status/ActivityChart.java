package dev.ratelimit.http.status;

import dev.ratelimit.RecentActivity;
import dev.ratelimit.internal.http.settings.HttpText;

/**
 * The last five minutes as an inline SVG: one column per second, allowed (green) below denied
 * (red), scaled to the busiest second, with the scale and the time axis labelled. Only seconds with
 * traffic get shapes, so an idle limiter costs a few lines. No script: the {@code <title>}s are
 * the tooltips.
 */
final class ActivityChart {
    private static final int BAR = 2;
    private static final int LEFT = 44;
    private static final int TOP = 8;
    private static final int HEIGHT = 100;
    private static final int WIDTH = RecentActivity.SECONDS * BAR;

    private ActivityChart() {
    }

    static void render(StringBuilder out, String limiterName, RecentActivity recent) {
        long[] allowed = recent.allowedPerSecond();
        long[] denied = recent.deniedPerSecond();
        long peak = 1;
        for (int i = 0; i < allowed.length; i++) {
            peak = Math.max(peak, allowed[i] + denied[i]);
        }
        int base = TOP + HEIGHT;
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"").append(LEFT + WIDTH + 8)
                .append("\" height=\"").append(base + 22).append("\" role=\"img\">\n")
                .append("<title>").append(HttpText.markup(limiterName))
                .append(": allowed and denied requests per second, last 5 minutes</title>\n")
                .append("<rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(WIDTH)
                .append("\" height=\"").append(HEIGHT).append("\" class=\"plot\"/>\n");
        for (int i = 0; i < allowed.length; i++) {
            if (allowed[i] + denied[i] == 0) {
                continue;
            }
            int x = LEFT + i * BAR;
            int allowedHeight = scaled(allowed[i], peak);
            int deniedHeight = denied[i] == 0 ? 0
                    : Math.max(1, scaled(allowed[i] + denied[i], peak) - allowedHeight);
            String tip = "<title>" + (i - allowed.length + 1) + " s: " + allowed[i] + " allowed, " + denied[i]
                    + " denied</title>";
            if (allowed[i] > 0) {
                bar(out, "allowed", x, base - allowedHeight, allowedHeight, tip);
            }
            if (denied[i] > 0) {
                bar(out, "denied", x, base - allowedHeight - deniedHeight, deniedHeight, tip);
            }
        }
        label(out, LEFT - 4, TOP + 8, "end", peak + "/s");
        label(out, LEFT - 4, base, "end", "0");
        for (int minute = 5; minute >= 0; minute--) {
            int x = LEFT + WIDTH - minute * 60 * BAR;
            label(out, x, base + 14, minute == 5 ? "start" : minute == 0 ? "end" : "middle",
                    minute == 0 ? "now" : "-" + minute + " min");
        }
        out.append("</svg>\n");
    }

    /** At least one pixel for any traffic at all, so a single request is visible. */
    private static int scaled(long value, long peak) {
        return value == 0 ? 0 : (int) Math.max(1, Math.round((double) value * HEIGHT / peak));
    }

    private static void bar(StringBuilder out, String kind, int x, int y, int height, String tip) {
        out.append("<rect class=\"").append(kind).append("\" x=\"").append(x).append("\" y=\"").append(y)
                .append("\" width=\"").append(BAR).append("\" height=\"").append(height).append("\">").append(tip)
                .append("</rect>\n");
    }

    private static void label(StringBuilder out, int x, int y, String anchor, String text) {
        out.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" text-anchor=\"").append(anchor)
                .append("\">").append(HttpText.markup(text)).append("</text>\n");
    }
}
