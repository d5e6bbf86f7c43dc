package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;

/**
 * How {@link SteadyState} picks a step's steady-state window. Immutable; the constructor validates and names
 * the bad key.
 *
 * <pre>
 *   key               default  meaning
 *   ramp-up-s         auto     seconds excluded at the start of the step; auto = detect (below)
 *   tail-s            auto     seconds excluded at the end; auto = drop only the trailing partial seconds
 *   window-s          5        rolling window for the detection, seconds (&gt;= 2)
 *   max-cv            0.05     a window is steady when its IOPS coefficient of variation (sd / mean) is &lt;= this
 *   level-tolerance   0.05     ... and its mean IOPS, and its first second's, are within this fraction of the
 *                              reference level (so the window cannot start on the last ramp second)
 *   partial-fraction  0.80     a trailing second with IOPS below this fraction of the reference is partial
 *   min-steady-s      10       a window shorter than this is reported TOO_SHORT
 * </pre>
 * In the int fields, {@link #AUTO} (-1) stands for {@code auto}.
 */
public record SteadyStateConfig(int rampUpS, int tailS, int windowS, double maxCv, double levelTolerance,
                                double partialFraction, int minSteadyS) implements Serializable {

    public static final int AUTO = -1;
    static final String WHAT = "steady-state";
    public static final String RAMP_UP_S = "ramp-up-s";
    public static final String TAIL_S = "tail-s";
    public static final String WINDOW_S = "window-s";
    public static final String MAX_CV = "max-cv";
    public static final String LEVEL_TOLERANCE = "level-tolerance";
    public static final String PARTIAL_FRACTION = "partial-fraction";
    public static final String MIN_STEADY_S = "min-steady-s";
    public static final Set<String> KEYS =
            Set.of(RAMP_UP_S, TAIL_S, WINDOW_S, MAX_CV, LEVEL_TOLERANCE, PARTIAL_FRACTION, MIN_STEADY_S);

    public SteadyStateConfig {
        if (rampUpS < AUTO) {
            throw new IllegalArgumentException(WHAT + " setting '" + RAMP_UP_S + "' must be >= 0 or auto, got " + rampUpS);
        }
        if (tailS < AUTO) {
            throw new IllegalArgumentException(WHAT + " setting '" + TAIL_S + "' must be >= 0 or auto, got " + tailS);
        }
        Settings.requireRange(WHAT, WINDOW_S, windowS, 2, 3600);
        Settings.requireRange(WHAT, MAX_CV, maxCv, 0, 10);
        Settings.requireRange(WHAT, LEVEL_TOLERANCE, levelTolerance, 0, 10);
        Settings.requireRange(WHAT, PARTIAL_FRACTION, partialFraction, 0, 1);
        Settings.requireRange(WHAT, MIN_STEADY_S, minSteadyS, 1, 1_000_000);
    }

    public static SteadyStateConfig defaults() {
        return new SteadyStateConfig(AUTO, AUTO, 5, 0.05, 0.05, 0.80, 10);
    }

    /** Fixed exclusions (the CONFIGURED mode); the other settings keep their defaults. */
    public static SteadyStateConfig configured(int rampUpS, int tailS) {
        SteadyStateConfig d = defaults();
        return new SteadyStateConfig(rampUpS, tailS, d.windowS, d.maxCv, d.levelTolerance, d.partialFraction,
                d.minSteadyS);
    }

    /** Parses the keys above (values as text); unknown keys and bad values throw, naming the key. */
    public static SteadyStateConfig fromMap(Map<String, String> settings) {
        Settings s = Settings.of(WHAT, settings, KEYS);
        SteadyStateConfig d = defaults();
        return new SteadyStateConfig(
                s.getIntOrAuto(RAMP_UP_S, d.rampUpS, AUTO),
                s.getIntOrAuto(TAIL_S, d.tailS, AUTO),
                s.getInt(WINDOW_S, d.windowS),
                s.getDouble(MAX_CV, d.maxCv),
                s.getDouble(LEVEL_TOLERANCE, d.levelTolerance),
                s.getDouble(PARTIAL_FRACTION, d.partialFraction),
                s.getInt(MIN_STEADY_S, d.minSteadyS));
    }

    public boolean rampUpConfigured() {
        return rampUpS != AUTO;
    }
}
