package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;

/**
 * Thresholds of {@link SaturationDetector}. Immutable; the constructor validates and names the bad key.
 *
 * <pre>
 *   key                       default  meaning
 *   metric                    iops     throughput judged: iops or mb-per-s
 *   marginal-gain-ratio       0.25     stalled when gain% / load-increase% is under this (0.25: doubling the
 *                                      load bought less than +25 %)
 *   min-efficiency            0.50     ... or when efficiency vs linear scaling from the first step is under this
 *                                      (0 disables)
 *   min-latency-growth-pct    10       and saturated only if mean latency also grew by more than this, percent
 *   port-utilization-pct      95       a port direction at or above this % of its payload rate is the bottleneck
 *   cpu-utilization-pct       90       else a host at or above this % of its logical processors is
 *   littles-law-tolerance     0.10     |relative error| accepted by the Little's-law check
 * </pre>
 */
public record SaturationConfig(ThroughputMetric metric, double marginalGainRatio, double minEfficiency,
                               double minLatencyGrowthPct, double portUtilizationPct, double cpuUtilizationPct,
                               double littlesLawTolerance) implements Serializable {

    static final String WHAT = "saturation";
    public static final String METRIC = "metric";
    public static final String MARGINAL_GAIN_RATIO = "marginal-gain-ratio";
    public static final String MIN_EFFICIENCY = "min-efficiency";
    public static final String MIN_LATENCY_GROWTH_PCT = "min-latency-growth-pct";
    public static final String PORT_UTILIZATION_PCT = "port-utilization-pct";
    public static final String CPU_UTILIZATION_PCT = "cpu-utilization-pct";
    public static final String LITTLES_LAW_TOLERANCE = "littles-law-tolerance";
    public static final Set<String> KEYS = Set.of(METRIC, MARGINAL_GAIN_RATIO, MIN_EFFICIENCY, MIN_LATENCY_GROWTH_PCT,
            PORT_UTILIZATION_PCT, CPU_UTILIZATION_PCT, LITTLES_LAW_TOLERANCE);

    public SaturationConfig {
        if (metric == null) {
            throw new IllegalArgumentException(WHAT + " setting '" + METRIC + "' must be iops or mb-per-s");
        }
        Settings.requireRange(WHAT, MARGINAL_GAIN_RATIO, marginalGainRatio, 0, 1);
        Settings.requireRange(WHAT, MIN_EFFICIENCY, minEfficiency, 0, 1);
        Settings.requireAtLeast(WHAT, MIN_LATENCY_GROWTH_PCT, minLatencyGrowthPct, 0);
        Settings.requireRange(WHAT, PORT_UTILIZATION_PCT, portUtilizationPct, 1, 100);
        Settings.requireRange(WHAT, CPU_UTILIZATION_PCT, cpuUtilizationPct, 1, 100);
        Settings.requireRange(WHAT, LITTLES_LAW_TOLERANCE, littlesLawTolerance, 0, 10);
    }

    public static SaturationConfig defaults() {
        return new SaturationConfig(ThroughputMetric.IOPS, 0.25, 0.50, 10, 95, 90, LittlesLaw.DEFAULT_TOLERANCE);
    }

    /** Parses the keys above (values as text) over the defaults; unknown keys and bad values throw, naming the key. */
    public static SaturationConfig fromMap(Map<String, String> settings) {
        Settings s = Settings.of(WHAT, settings, KEYS);
        SaturationConfig d = defaults();
        ThroughputMetric metric;
        try {
            metric = ThroughputMetric.fromKey(s.getString(METRIC, d.metric.key()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(WHAT + " setting '" + METRIC + "': " + e.getMessage(), e);
        }
        return new SaturationConfig(
                metric,
                s.getDouble(MARGINAL_GAIN_RATIO, d.marginalGainRatio),
                s.getDouble(MIN_EFFICIENCY, d.minEfficiency),
                s.getDouble(MIN_LATENCY_GROWTH_PCT, d.minLatencyGrowthPct),
                s.getDouble(PORT_UTILIZATION_PCT, d.portUtilizationPct),
                s.getDouble(CPU_UTILIZATION_PCT, d.cpuUtilizationPct),
                s.getDouble(LITTLES_LAW_TOLERANCE, d.littlesLawTolerance));
    }
}
