package io.ioscale.analytics;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the steady-state window of one load step from its per-second fleet series, so the step summary and
 * the saturation decision are not diluted by the ramp-up (VMs and workers starting, caches warming) or by the
 * partial last second.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>The window is a contiguous run of whole seconds {@code [fromIndex, toIndex)} of the series, and lies
 *       inside the step: when the step bounds are given, a second that starts before {@code stepStartMs} or ends
 *       after {@code stepEndMs} (a partial second) is never in it.</li>
 *   <li>{@link SteadyStateWindow#usable()} is true only when the window has at least {@code min-steady-s}
 *       seconds and was either configured or found steady; otherwise the reason says TOO_SHORT or
 *       NOT_STEADY and the window is a best effort.</li>
 *   <li>Deterministic and O(n * window-s); no state between calls (safe to call from any Flink operator).</li>
 * </ul>
 *
 * <h2>Method</h2>
 * <ol>
 *   <li>Full seconds: drop the seconds not wholly inside [stepStartMs, stepEndMs) (when given).</li>
 *   <li>Reference level: the median IOPS of the second half of those seconds (the step's level once warm;
 *       the median ignores a stall or a partial second).</li>
 *   <li>Tail: tail-s configured drops the last tail-s seconds of the step; auto drops trailing seconds while
 *       their IOPS is below partial-fraction x reference (a partial or ramp-down second).</li>
 *   <li>Ramp-up: ramp-up-s configured starts the window ramp-up-s seconds after the step start (CONFIGURED).
 *       auto (DETECTED) starts it at the first second i whose rolling window [i, i + window-s) has
 *       CV = sd / mean &lt;= max-cv, a mean within level-tolerance of the reference, and whose own IOPS is within
 *       level-tolerance of the reference. If there is no such window: NOT_STEADY, the window is every full
 *       second left.</li>
 *   <li>Fewer than min-steady-s seconds left: TOO_SHORT.</li>
 * </ol>
 *
 * <h2>Worked example (defaults: window 5 s, max-cv 0.05, level-tolerance 0.05, partial-fraction 0.8)</h2>
 * <pre>
 *   second   0   1    2    ...  9    10    11   ...  69    70 (step ends at 70.4 s)
 *   IOPS     0   10K  20K  ...  90K  100K  99K  ...  101K  40K
 * </pre>
 * Second 70 ends after the step: partial, dropped. The reference is the median of seconds 35..69 = ~100K.
 * Window [9, 14) has CV 0.04 but second 9 (90K) is 10% under the reference: not a start. Window [10, 15) has
 * CV ~0.01 and starts at level: DETECTED, window [10, 70) = 60 s, average ~100K IOPS.
 */
public final class SteadyState {
    /** The series is per second. */
    public static final long SECOND_MS = 1000;

    private SteadyState() {}

    /** Without step bounds: the series is taken to be the whole step (partial seconds by partial-fraction only). */
    public static SteadyStateWindow choose(List<FleetSecond> series, SteadyStateConfig config) {
        return choose(series, Long.MIN_VALUE, Long.MAX_VALUE, config);
    }

    /**
     * Chooses the window of a step that ran over [stepStartMs, stepEndMs) (the STEP_STARTED / STEP_ENDED times;
     * Long.MIN_VALUE / Long.MAX_VALUE when unknown).
     *
     * @throws IllegalArgumentException if the series is not strictly ascending in tsMs
     */
    public static SteadyStateWindow choose(List<FleetSecond> series, long stepStartMs, long stepEndMs,
                                           SteadyStateConfig config) {
        return choose(series, stepStartMs, stepEndMs, config, ThroughputMetric.IOPS);
    }

    /**
     * As {@link #choose(List, long, long, SteadyStateConfig)}, judged on {@code metric}'s series: a network step
     * has no I/Os, only the payload its ports moved (MB/s).
     */
    public static SteadyStateWindow choose(List<FleetSecond> series, long stepStartMs, long stepEndMs,
                                           SteadyStateConfig config, ThroughputMetric metric) {
        if (metric == ThroughputMetric.IOPS) {
            return chooseOnFirstRate(series, stepStartMs, stepEndMs, config, "IOPS");
        }
        List<FleetSecond> rates = new ArrayList<>(series.size());
        for (FleetSecond s : series) {
            rates.add(new FleetSecond(s.tsMs(), s.mbPerS(), s.mbPerS(), s.meanLatencyNs()));
        }
        return chooseOnFirstRate(rates, stepStartMs, stepEndMs, config, "MB/s");
    }

    /** The window, judged on each second's {@code iops()} field, named {@code unit} in the detail. */
    private static SteadyStateWindow chooseOnFirstRate(List<FleetSecond> series, long stepStartMs, long stepEndMs,
                                                       SteadyStateConfig config, String unit) {
        int n = series.size();
        for (int i = 1; i < n; i++) {
            if (series.get(i).tsMs() <= series.get(i - 1).tsMs()) {
                throw new IllegalArgumentException("series not strictly ascending at position " + i + " (ts_ms "
                        + series.get(i).tsMs() + " after " + series.get(i - 1).tsMs() + ")");
            }
        }
        // 1. whole seconds inside the step
        int lo = 0;
        while (lo < n && series.get(lo).tsMs() < stepStartMs) {
            lo++;
        }
        int hi = n;
        while (hi > lo && series.get(hi - 1).tsMs() > stepEndMs - SECOND_MS) {
            hi--;
        }
        long firstMs = lo < n ? series.get(lo).tsMs() : (stepStartMs == Long.MIN_VALUE ? 0 : stepStartMs);
        long stepBeginMs = stepStartMs == Long.MIN_VALUE ? firstMs : stepStartMs;
        if (hi - lo == 0) {
            return new SteadyStateWindow(lo, lo, stepBeginMs, stepBeginMs, SteadyStateWindow.Reason.TOO_SHORT,
                    Double.NaN, "no whole second inside the step");
        }
        long stepFinishMs = stepEndMs == Long.MAX_VALUE ? series.get(hi - 1).tsMs() + SECOND_MS : stepEndMs;
        int fullFrom = lo;
        int fullTo = hi;

        // 2. reference level
        double reference = median(series, lo + (hi - lo) / 2, hi);

        // 3. tail
        StringBuilder why = new StringBuilder();
        if (config.tailS() != SteadyStateConfig.AUTO) {
            long boundaryMs = stepFinishMs - config.tailS() * SECOND_MS;
            while (hi > lo && series.get(hi - 1).tsMs() + SECOND_MS > boundaryMs) {
                hi--;
            }
            why.append("tail ").append(config.tailS()).append(" s configured");
        } else {
            int before = hi;
            while (hi > lo && series.get(hi - 1).iops() < config.partialFraction() * reference) {
                hi--;
            }
            why.append("dropped ").append(before - hi).append(" trailing second(s) under ")
                    .append(pct(config.partialFraction())).append(" of the reference");
        }
        if (fullTo < n || fullFrom > 0) {
            why.append(", ").append(n - (fullTo - fullFrom)).append(" second(s) outside the step");
        }

        // 4. ramp-up
        SteadyStateWindow.Reason reason;
        int from;
        if (config.rampUpConfigured()) {
            long boundaryMs = stepBeginMs + config.rampUpS() * SECOND_MS;
            from = lo;
            while (from < hi && series.get(from).tsMs() < boundaryMs) {
                from++;
            }
            reason = SteadyStateWindow.Reason.CONFIGURED;
            why.insert(0, "ramp-up " + config.rampUpS() + " s configured; ");
        } else {
            from = detectStart(series, lo, hi, reference, config);
            if (from < 0) {
                from = lo;
                reason = hi - lo < config.windowS() ? SteadyStateWindow.Reason.TOO_SHORT
                        : SteadyStateWindow.Reason.NOT_STEADY;
                why.insert(0, reason == SteadyStateWindow.Reason.TOO_SHORT
                        ? (hi - lo) + " s is shorter than the " + config.windowS() + " s detection window; "
                        : "no " + config.windowS() + " s window with CV <= " + config.maxCv() + " within "
                                + pct(config.levelTolerance()) + " of the reference " + fmt(reference) + " " + unit + "; ");
            } else {
                reason = SteadyStateWindow.Reason.DETECTED;
                why.insert(0, "ramp-up detected: first steady " + config.windowS() + " s window starts at second "
                        + (from - fullFrom) + " of the step (reference " + fmt(reference) + " " + unit + "); ");
            }
        }
        // 5. length
        int to = Math.max(hi, from);
        if ((reason == SteadyStateWindow.Reason.CONFIGURED || reason == SteadyStateWindow.Reason.DETECTED)
                && to - from < config.minSteadyS()) {
            why.insert(0, (to - from) + " s left, under min-steady-s " + config.minSteadyS() + "; ");
            reason = SteadyStateWindow.Reason.TOO_SHORT;
        }
        long startMs = from < to ? series.get(from).tsMs() : stepBeginMs;
        long endMs = from < to ? series.get(to - 1).tsMs() + SECOND_MS : startMs;
        return new SteadyStateWindow(from, to, startMs, endMs, reason, cv(series, from, to), why.toString());
    }

    private static int detectStart(List<FleetSecond> series, int lo, int hi, double reference,
                                   SteadyStateConfig config) {
        int w = config.windowS();
        double tol = config.levelTolerance();
        for (int i = lo; i + w <= hi; i++) {
            double first = series.get(i).iops();
            if (!(Math.abs(first / reference - 1) <= tol)) {
                continue;
            }
            double mean = mean(series, i, i + w);
            if (!(Math.abs(mean / reference - 1) <= tol)) {
                continue;
            }
            if (cv(series, i, i + w) <= config.maxCv()) {
                return i;
            }
        }
        return -1;
    }

    private static double mean(List<FleetSecond> series, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += series.get(i).iops();
        }
        return sum / (to - from);
    }

    /** Population coefficient of variation of IOPS; NaN when empty, +inf when the mean is 0. */
    static double cv(List<FleetSecond> series, int from, int to) {
        if (to <= from) {
            return Double.NaN;
        }
        double mean = mean(series, from, to);
        if (mean <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        double ss = 0;
        for (int i = from; i < to; i++) {
            double d = series.get(i).iops() - mean;
            ss += d * d;
        }
        return Math.sqrt(ss / (to - from)) / mean;
    }

    private static double median(List<FleetSecond> series, int from, int to) {
        double[] v = new double[to - from];
        for (int i = from; i < to; i++) {
            v[i - from] = series.get(i).iops();
        }
        Arrays.sort(v);
        int m = v.length;
        return m % 2 == 1 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
    }

    private static String pct(double fraction) {
        return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
