package io.ioscale.analytics;

import java.io.Serializable;
import java.util.List;

/**
 * The steady-state part of one load step, chosen by {@link SteadyState}: seconds {@code [fromIndex, toIndex)} of
 * the series, i.e. the time range {@code [startMs, endMs)}.
 *
 * @param fromIndex first second in the window (index into the series given to {@link SteadyState})
 * @param toIndex   one past the last second
 * @param startMs   tsMs of the first second (the step start when the window is empty)
 * @param endMs     end of the last second, exclusive (tsMs + 1000)
 * @param reason    how the window was chosen
 * @param cv        IOPS coefficient of variation (sd / mean) over the window; NaN when empty
 * @param detail    one line saying why, with the numbers (for logs and the run report)
 */
public record SteadyStateWindow(int fromIndex, int toIndex, long startMs, long endMs, Reason reason, double cv,
                                String detail) implements Serializable {

    public enum Reason {
        /** ramp-up-s (and tail-s) were configured and leave at least min-steady-s seconds. */
        CONFIGURED,
        /** The ramp-up was detected: the first rolling window with a low CV at the step's level. */
        DETECTED,
        /** Fewer than min-steady-s seconds are left: the window is the best effort, not to be trusted. */
        TOO_SHORT,
        /** No rolling window met the CV bound: the window is every full second, not to be trusted. */
        NOT_STEADY,
        /**
         * Every sample spans the whole step (a tool's whole-run result: Iometer, DISKSPD, fio JSON): the tool's
         * measured window, which already excludes its ramp-up, is the steady state. No series to index.
         */
        WHOLE_STEP
    }

    /** The window of whole-step samples covering [startMs, endMs). */
    public static SteadyStateWindow wholeStep(long startMs, long endMs, String detail) {
        return new SteadyStateWindow(0, 0, startMs, endMs, Reason.WHOLE_STEP, Double.NaN, detail);
    }

    /** Seconds in the window (for WHOLE_STEP, its length rounded to the second). */
    public int seconds() {
        return reason == Reason.WHOLE_STEP ? (int) Math.round((endMs - startMs) / 1000.0) : toIndex - fromIndex;
    }

    /** CONFIGURED, DETECTED or WHOLE_STEP: fit for the step summary and the saturation decision. */
    public boolean usable() {
        return reason == Reason.CONFIGURED || reason == Reason.DETECTED || reason == Reason.WHOLE_STEP;
    }

    /** The window's seconds, a view of {@code series} (the same list {@link SteadyState} was given). */
    public List<FleetSecond> slice(List<FleetSecond> series) {
        return series.subList(fromIndex, toIndex);
    }

    /**
     * Averages over the window: mean IOPS and MB/s per second, and the mean latency weighted by each second's
     * I/O count (the fleet mean over the window, not a mean of per-second means). tsMs is {@link #startMs}.
     * An empty window gives zeros and a NaN latency.
     */
    public FleetSecond average(List<FleetSecond> series) {
        double ios = 0;
        double mb = 0;
        double latencyIos = 0;
        double latencyWeightedNs = 0;
        for (FleetSecond s : slice(series)) {
            ios += s.iops();
            mb += s.mbPerS();
            if (!Double.isNaN(s.meanLatencyNs()) && s.iops() > 0) {
                latencyIos += s.iops();
                latencyWeightedNs += s.iops() * s.meanLatencyNs();
            }
        }
        int n = seconds();
        if (n == 0) {
            return new FleetSecond(startMs, 0, 0, Double.NaN);
        }
        return new FleetSecond(startMs, ios / n, mb / n, latencyIos > 0 ? latencyWeightedNs / latencyIos : Double.NaN);
    }
}
