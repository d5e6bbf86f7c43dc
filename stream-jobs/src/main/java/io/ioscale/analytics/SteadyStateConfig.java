package io.ioscale.analytics;

import java.io.Serializable;

/**
 * How {@link SteadyState} picks a step's steady-state window: the value of the job's {@code --steady-state}
 * option, whose keys (the constants below) and meanings {@code config.AnalyticsOptions} describes. Immutable; the
 * constructor checks the ranges and names the bad key. In the int fields, {@link #AUTO} (-1) stands for
 * {@code auto}.
 */
public record SteadyStateConfig(int rampUpS, int tailS, int windowS, double maxCv, double levelTolerance,
                                double partialFraction, int minSteadyS) implements Serializable {

    public static final int AUTO = -1;
    public static final String WHAT = "steady-state";
    public static final String RAMP_UP_S = "ramp-up-s";
    public static final String TAIL_S = "tail-s";
    public static final String WINDOW_S = "window-s";
    public static final String MAX_CV = "max-cv";
    public static final String LEVEL_TOLERANCE = "level-tolerance";
    public static final String PARTIAL_FRACTION = "partial-fraction";
    public static final String MIN_STEADY_S = "min-steady-s";

    public SteadyStateConfig {
        if (rampUpS < AUTO) {
            throw new IllegalArgumentException(WHAT + " setting '" + RAMP_UP_S + "' must be >= 0 or auto, got " + rampUpS);
        }
        if (tailS < AUTO) {
            throw new IllegalArgumentException(WHAT + " setting '" + TAIL_S + "' must be >= 0 or auto, got " + tailS);
        }
        Ranges.requireRange(WHAT, WINDOW_S, windowS, 2, 3600);
        Ranges.requireRange(WHAT, MAX_CV, maxCv, 0, 10);
        Ranges.requireRange(WHAT, LEVEL_TOLERANCE, levelTolerance, 0, 10);
        Ranges.requireRange(WHAT, PARTIAL_FRACTION, partialFraction, 0, 1);
        Ranges.requireRange(WHAT, MIN_STEADY_S, minSteadyS, 1, 1_000_000);
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

    public boolean rampUpConfigured() {
        return rampUpS != AUTO;
    }
}
