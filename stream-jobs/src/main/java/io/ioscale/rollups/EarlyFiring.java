package io.ioscale.rollups;

import java.io.Serializable;
import java.time.Duration;

/**
 * Provisional rows before the watermark closes a window: freshness for live runs.
 *
 * <p>Why: a window's row is final when the watermark passes its end, and the watermark trails the newest event
 * time by the out-of-orderness bound (2 s) and moves only when newer samples arrive. A 1 s sample is complete when
 * its interval ends, so a live fleet's second is all there a few hundred ms after it ends, yet its final row would
 * come 3 s or more later. With early firing a window emits its row, marked provisional, {@code delayMs} of wall
 * clock after its end (or {@code settleMs} after its latest record, when records trickle in later), and again
 * whenever more records arrive before it closes (up to {@link #HORIZON_MS} after the first was due: later ones
 * mean a backlog, not a live run). When the watermark closes it, the final row is emitted; with
 * {@code skipUnchangedFinal} only if records came after the last provisional row (otherwise that row already is
 * the final one: same identity, same version).
 *
 * <p>What it does not change: which records are on time or late, the final rows, the roll-up into coarser grains
 * (done once, at the final firing). Provisional rows have the identity and version (samples merged) of the final
 * row, so ReplacingMergeTree keeps the newest. Only windows of the grains that take records directly are fired
 * early: a coarser grain filled by roll-up holds nothing before its finer windows close.
 *
 * <p>Off ({@link #OFF}) for a replay of a past run: there the wall clock says nothing about completeness.
 *
 * @param delayMs            wall-clock time after a window's end before its first provisional row; &lt;= 0: off
 * @param settleMs           wait after a record that arrives later than that (a straggler, a fleet partial) before
 *                           the window's next provisional row, so a burst of them makes one row
 * @param skipUnchangedFinal no final row when a provisional row already showed the window's final content (false
 *                           where a downstream consumer needs every final row, e.g. the fleet's step analyzer)
 */
public record EarlyFiring(long delayMs, long settleMs, boolean skipUnchangedFinal) implements Serializable {

    /** No provisional rows: windows fire on the watermark only. */
    public static final EarlyFiring OFF = new EarlyFiring(0, 0, false);

    /**
     * A record that arrives this long after its window's first provisional row was due is not shown early: the
     * job is catching up (a backlog after a restart, a run stamped in the past), the watermark will close the
     * window as fast, and provisional rows there would only multiply the rows written.
     */
    public static final long HORIZON_MS = 2_000;

    /**
     * How long after its end a coarser (rolled-up) window still open is shown provisionally (GrainRollupOperator):
     * longer than a sample interval plus the watermark's lag, so a live stream's watermark closes it first.
     */
    public static final long QUIET_MS = 5_000;

    /**
     * How long the watermark must have stood still before a coarser window it left open is shown: longer than it
     * stands still while a backlog is worked off under load (a checkpoint's burst, a second of 20,000 sources
     * taking 2 s to read), or every such pause would show every key's open coarser windows, and again at each
     * second rolled into them afterwards.
     */
    public static final long STILL_MS = 15_000;

    /** How long a record that came after its window's first provisional row waits to be shown. */
    public static final long DEFAULT_SETTLE_MS = 50;

    public static EarlyFiring after(Duration delay, boolean skipUnchangedFinal) {
        return delay.isZero() || delay.isNegative() ? OFF
                : new EarlyFiring(delay.toMillis(), Math.min(DEFAULT_SETTLE_MS, delay.toMillis()), skipUnchangedFinal);
    }

    public boolean enabled() {
        return delayMs > 0;
    }
}
