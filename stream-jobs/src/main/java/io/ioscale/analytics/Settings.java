package io.ioscale.analytics;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a {@code key -> text} map for the analytics config records ({@link SaturationConfig},
 * {@link SteadyStateConfig}): rejects unknown keys with the list of known ones, and every parse or range error
 * names the key and the bad value, so a typo never silently falls back to a default.
 */
final class Settings {
    private final String what;
    private final Map<String, String> given;

    private Settings(String what, Map<String, String> given) {
        this.what = what;
        this.given = given;
    }

    /** Checks every key of {@code given} is in {@code known}; {@code what} names the setting group in errors. */
    static Settings of(String what, Map<String, String> given, Set<String> known) {
        for (String key : given.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException("unknown " + what + " setting '" + key + "'; known: "
                        + String.join(", ", new TreeSet<>(known)));
            }
        }
        return new Settings(what, given);
    }

    double getDouble(String key, double fallback) {
        String text = given.get(key);
        if (text == null) {
            return fallback;
        }
        try {
            double v = Double.parseDouble(text.trim());
            if (!Double.isFinite(v)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " setting '" + key + "' must be a finite number, got '"
                    + text + "'", e);
        }
    }

    /** An integer, or {@code auto} (case-insensitive) which returns {@code autoValue}. */
    int getIntOrAuto(String key, int fallback, int autoValue) {
        String text = given.get(key);
        if (text == null) {
            return fallback;
        }
        if (text.trim().equalsIgnoreCase("auto")) {
            return autoValue;
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " setting '" + key + "' must be an integer or 'auto', got '"
                    + text + "'", e);
        }
    }

    int getInt(String key, int fallback) {
        String text = given.get(key);
        if (text == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " setting '" + key + "' must be an integer, got '"
                    + text + "'", e);
        }
    }

    String getString(String key, String fallback) {
        String text = given.get(key);
        return text == null ? fallback : text.trim();
    }

    // ------------------------------------------------------------------ range checks used by the records

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

    static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
