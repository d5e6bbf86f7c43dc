package io.ioscale.analytics;

import java.io.Serializable;
import java.util.Locale;

/**
 * Little's-law check of one step: in a closed-loop generator (Iometer, DISKSPD, fio with a fixed iodepth) the
 * I/Os in flight equal throughput x mean latency, L = X x R. A measured outstanding count that disagrees means
 * the telemetry is inconsistent (a missing VM, a wrong interval, latency measured at a different layer) or the
 * generator is not closed-loop (rate-limited, or think time).
 *
 * <h2>Method</h2>
 * expected = iops x meanLatencyNs / 10^9; relativeError = (measured - expected) / expected; consistent when
 * |relativeError| &lt;= tolerance. Unknown inputs (NaN, or expected = 0) give {@code checked = false}.
 *
 * <h2>Worked example</h2>
 * Seed 000, 8 KB, 4 workers x 30 outstanding: 128,772 IOPS at 931.9 us mean latency: expected
 * 128,772 x 0.0009319 = 120.0 = the 120 configured, error 0.0%, consistent. If the fleet reported 60 in flight
 * (half the VMs missing), the error would be -50%: inconsistent.
 *
 * @param expected      iops x mean latency (I/Os in flight implied by Little's law); NaN when unknown
 * @param measured      mean outstanding I/Os reported by the generators; NaN when unknown
 * @param relativeError (measured - expected) / expected; NaN when not checked
 * @param tolerance     the |relativeError| accepted as consistent
 * @param checked       both sides known and expected &gt; 0
 * @param consistent    checked and |relativeError| &lt;= tolerance
 */
public record LittlesLaw(double expected, double measured, double relativeError, double tolerance, boolean checked,
                         boolean consistent) implements Serializable {

    public static final double DEFAULT_TOLERANCE = 0.10;

    public static LittlesLaw check(double iops, double meanLatencyNs, double measuredOutstanding, double tolerance) {
        if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
            throw new IllegalArgumentException("Little's law tolerance must be a finite number >= 0, got " + tolerance);
        }
        double expected = iops * meanLatencyNs / 1e9;
        boolean checked = Double.isFinite(expected) && expected > 0 && Double.isFinite(measuredOutstanding);
        double error = checked ? (measuredOutstanding - expected) / expected : Double.NaN;
        return new LittlesLaw(expected, measuredOutstanding, error, tolerance, checked,
                checked && Math.abs(error) <= tolerance);
    }

    @Override
    public String toString() {
        if (!checked) {
            return "Little's law not checked (expected " + expected + ", measured " + measured + ")";
        }
        return String.format(Locale.ROOT, "Little's law: expected %.2f in flight, measured %.2f, error %+.1f%% (%s)",
                expected, measured, relativeError * 100, consistent ? "consistent" : "INCONSISTENT");
    }
}
