package io.ioscale.analytics;

import java.io.Serializable;

/**
 * One second of a load step, summed over the whole fleet (every VM and target): the input of
 * {@link SteadyState}.
 *
 * @param tsMs          start of the second, UTC ms; a series is ascending and 1 s apart (gaps are allowed)
 * @param iops          I/Os completed in the second (reads + writes)
 * @param mbPerS        payload moved in the second, MB/s (10^6 bytes)
 * @param meanLatencyNs mean completion latency of those I/Os, ns (the fleet's latency_sum_ns / latency_count,
 *                      never an average of per-VM means); NaN when no I/O completed
 */
public record FleetSecond(long tsMs, double iops, double mbPerS, double meanLatencyNs) implements Serializable {
    public FleetSecond {
        if (!(iops >= 0) || Double.isInfinite(iops)) {
            throw new IllegalArgumentException("iops must be a finite number >= 0, got " + iops + " at ts_ms " + tsMs);
        }
        if (!(mbPerS >= 0) || Double.isInfinite(mbPerS)) {
            throw new IllegalArgumentException("mb_per_s must be a finite number >= 0, got " + mbPerS
                    + " at ts_ms " + tsMs);
        }
        if (meanLatencyNs < 0 || Double.isInfinite(meanLatencyNs)) {
            throw new IllegalArgumentException("mean_latency_ns must be >= 0 or NaN, got " + meanLatencyNs
                    + " at ts_ms " + tsMs);
        }
    }
}
