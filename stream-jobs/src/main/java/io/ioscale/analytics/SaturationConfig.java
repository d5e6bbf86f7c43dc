package io.ioscale.analytics;

import java.io.Serializable;

/**
 * Thresholds of {@link SaturationDetector}: the value of the job's {@code --saturation} option, whose keys (the
 * constants below) and meanings {@code config.AnalyticsOptions} describes. Immutable; the constructor checks the
 * ranges and names the bad key.
 */
public record SaturationConfig(ThroughputMetric metric, double marginalGainRatio, double minEfficiency,
                               double minLatencyGrowthPct, double portUtilizationPct, double cpuUtilizationPct,
                               double littlesLawTolerance) implements Serializable {

    public static final String WHAT = "saturation";
    public static final String METRIC = "metric";
    public static final String MARGINAL_GAIN_RATIO = "marginal-gain-ratio";
    public static final String MIN_EFFICIENCY = "min-efficiency";
    public static final String MIN_LATENCY_GROWTH_PCT = "min-latency-growth-pct";
    public static final String PORT_UTILIZATION_PCT = "port-utilization-pct";
    public static final String CPU_UTILIZATION_PCT = "cpu-utilization-pct";
    public static final String LITTLES_LAW_TOLERANCE = "littles-law-tolerance";

    public SaturationConfig {
        if (metric == null) {
            throw new IllegalArgumentException(WHAT + " setting '" + METRIC + "' must be iops or mb-per-s");
        }
        Ranges.requireRange(WHAT, MARGINAL_GAIN_RATIO, marginalGainRatio, 0, 1);
        Ranges.requireRange(WHAT, MIN_EFFICIENCY, minEfficiency, 0, 1);
        Ranges.requireAtLeast(WHAT, MIN_LATENCY_GROWTH_PCT, minLatencyGrowthPct, 0);
        Ranges.requireRange(WHAT, PORT_UTILIZATION_PCT, portUtilizationPct, 1, 100);
        Ranges.requireRange(WHAT, CPU_UTILIZATION_PCT, cpuUtilizationPct, 1, 100);
        Ranges.requireRange(WHAT, LITTLES_LAW_TOLERANCE, littlesLawTolerance, 0, 10);
    }

    /** The same thresholds, judging {@code other}'s throughput. */
    public SaturationConfig withMetric(ThroughputMetric other) {
        return new SaturationConfig(other, marginalGainRatio, minEfficiency, minLatencyGrowthPct, portUtilizationPct,
                cpuUtilizationPct, littlesLawTolerance);
    }

    public static SaturationConfig defaults() {
        return new SaturationConfig(ThroughputMetric.IOPS, 0.25, 0.50, 10, 95, 90, LittlesLaw.DEFAULT_TOLERANCE);
    }
}
