package io.ioscale.analytics;

import java.util.Arrays;
import java.util.List;

/** Which throughput a scaling curve judges: I/Os per second, or MB/s (the same shape at a fixed block size). */
public enum ThroughputMetric {
    IOPS,
    MB_PER_S;

    public double of(StepSummary step) {
        return this == IOPS ? step.iops() : step.mbPerS();
    }

    /** The config text: "iops" or "mb-per-s". */
    public String key() {
        return this == IOPS ? "iops" : "mb-per-s";
    }

    /** The scaling_curves column it judges, as usl_fits.metric and the SQL library name it: iops or mb_per_s. */
    public String column() {
        return this == IOPS ? "iops" : "mb_per_s";
    }

    /** The keys, in declaration order. */
    public static List<String> keys() {
        return Arrays.stream(values()).map(ThroughputMetric::key).toList();
    }

    public static ThroughputMetric fromKey(String key) {
        for (ThroughputMetric m : values()) {
            if (m.key().equalsIgnoreCase(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown throughput metric '" + key + "'; known: "
                + String.join(", ", keys()));
    }
}
