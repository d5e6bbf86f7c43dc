package io.ioscale.analytics;

/**
 * Range checks of the analysis settings records ({@link SaturationConfig}, {@link SteadyStateConfig}): each error
 * names the setting group, the key and the bad value, so a value out of range never passes silently. Parsing the
 * text of the settings is {@code config.AnalyticsOptions}'s.
 */
final class Ranges {
    private Ranges() {}

    static void requireRange(String what, String key, double value, double lo, double hi) {
        if (!(value >= lo && value <= hi)) { // also rejects NaN
            throw new IllegalArgumentException(what + " setting '" + key + "' must be in [" + fmt(lo) + ", "
                    + fmt(hi) + "], got " + fmt(value));
        }
    }

    static void requireAtLeast(String what, String key, double value, double lo) {
        if (!(value >= lo) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(what + " setting '" + key + "' must be a finite number >= "
                    + fmt(lo) + ", got " + fmt(value));
        }
    }

    /** A number as the errors and the saturation evidence print it: whole numbers without a fraction. */
    static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
