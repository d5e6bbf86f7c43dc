package io.ioscale.rollups;

import io.ioscale.records.Grain;
import io.ioscale.records.RollupRow;
import java.util.Objects;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;

/**
 * Tumbling event-time windows of every grain of a key (1 s, 10 s, 1 min) in one keyed operator, with one state
 * entry ({@link GrainWindows}) and one event-time timer per key at a time, in place of Flink's window operator.
 *
 * <h2>Why</h2>
 * Flink's window operator costs, per record and per window, a state lookup and two timers (firing and cleanup),
 * each de-duplicated through a hash set and kept in a heap, and with 1 s samples every record opens a new 1 s
 * window. Here a record costs one state read and write;
 * a key registers a timer only when its earliest due time moves earlier (with 1 s samples: one per second, at
 * the end of the second, which both fires that second's windows and purges those past their lateness).
 *
 * <h2>Semantics (those of {@code window(...).allowedLateness(L).sideOutputLateData(tag)} with the event-time
 * trigger, which the MiniCluster oracle tests pin)</h2>
 * <ul>
 *   <li>A record belongs to one window per grain: [floor(t / g) g, + g).</li>
 *   <li>A window fires when the watermark reaches its last millisecond (end - 1): its row is emitted. It stays
 *       until the watermark reaches end - 1 + L (its cleanup time), then it is dropped.</li>
 *   <li>A record for a window that already fired, but is not yet dropped, is added and the window fires again at
 *       once with the updated row (same identity, larger version: it replaces the earlier row in ClickHouse).</li>
 *   <li>A record whose window of some grain is already dropped skips that grain only; a record late for every
 *       grain goes to the side output {@code lateTag} (counted by CountTooLate) and changes nothing.</li>
 *   <li>Rows are emitted with timestamp end - 1. All windows still open at the end of input fire (the final
 *       watermark is Long.MAX_VALUE).</li>
 * </ul>
 *
 * <h2>How: grains roll up</h2>
 * A record is added to its windows of the finest {@code directGrains} grains only. When a window of a coarser
 * grain fires the first time, its accumulator is merged into the window of the next coarser grain
 * ({@link GrainRollup#merge}, exact), which therefore holds everything of its finer windows by the time it fires
 * itself (finer windows fire first: they end no later). A record for a window that has already fired also goes
 * on to the coarser ones directly, as does a record too late for a finer grain. So a 10 s window is merged into
 * its minute once, not sample by sample; the rows are the same as if every grain took every record. Why not roll
 * the 1 s windows up too: the per-source 1 s window holds one sample, and merging it when the window fires reads
 * it again long after it arrived (out of the CPU caches); adding it to the 10 s window on arrival is cheaper
 * (bench/flink_job_bench.md).
 *
 * <h2>Early firing (live freshness)</h2>
 * With {@link #earlyFiring(EarlyFiring)}, the windows of the grains that take records directly also emit
 * provisional rows on processing-time timers, before the watermark closes them; see {@link EarlyFiring}. The
 * final firing, roll-up and lateness above are unchanged.
 *
 * <h2>Restarts</h2>
 * The windows and the key's timer are keyed state, checkpointed; a restored job fires and purges what its
 * watermark then reaches. Rows fired again after a replay carry the same identity and version, so the
 * ReplacingMergeTree tables neither lose nor double-count. {@code directGrains} is part of what the state means
 * (whether an open finer window's records are already in its coarser window): changing it, like changing the
 * state layout, needs a new operator uid.
 */
public class GrainRollupOperator<K, IN, ACC, OUT> extends AbstractStreamOperator<OUT>
        implements OneInputStreamOperator<IN, OUT>, Triggerable<K, VoidNamespace> {
    private static final long serialVersionUID = 1L;
    private static final String STATE = "grain-windows";
    private static final String TIMERS = "grain-timers";

    private final GrainRollup<K, IN, ACC, OUT> rollup;
    /** Window lengths, finest first; each divides the next. */
    private final long[] lengthsMs;
    /** Records go to the windows of this many finest grains; the coarser ones are filled by roll-up. */
    private final int directGrains;
    private final long allowedLatenessMs;
    private final OutputTag<IN> lateTag;
    private EarlyFiring early = EarlyFiring.OFF;

    private transient ValueState<GrainWindows<ACC>> windows;
    private transient TypeSerializer<ACC> accSerializer;
    private transient InternalTimerService<VoidNamespace> timers;
    private transient StreamRecord<OUT> rowRecord;
    /** When this subtask's watermark last advanced (processing time; not checkpointed). */
    private transient long watermarkMovedAtMs;

    /**
     * @param grains       finest first, each a whole number of the previous (1 s, 10 s, 1 min)
     * @param directGrains records go to their windows of this many finest grains (1 .. grains); the coarser
     *                     windows are filled by roll-up
     * @param lateTag      where records later than the allowed lateness for every grain go; null drops them
     */
    public GrainRollupOperator(GrainRollup<K, IN, ACC, OUT> rollup, Grain[] grains, int directGrains,
                               long allowedLatenessMs, OutputTag<IN> lateTag) {
        if (directGrains < 1 || directGrains > grains.length) {
            throw new IllegalArgumentException("directGrains must be 1 .. " + grains.length + ", is " + directGrains);
        }
        if (allowedLatenessMs < 0) {
            throw new IllegalArgumentException("allowed lateness must be >= 0 ms, is " + allowedLatenessMs);
        }
        this.rollup = rollup;
        this.lengthsMs = new long[grains.length];
        for (int i = 0; i < grains.length; i++) {
            lengthsMs[i] = grains[i].windowMs();
            if (i > 0 && lengthsMs[i] % lengthsMs[i - 1] != 0) {
                throw new IllegalArgumentException("grains must nest, finest first: " + grains[i] + " after "
                        + grains[i - 1]);
            }
        }
        this.directGrains = directGrains;
        this.allowedLatenessMs = allowedLatenessMs;
        this.lateTag = lateTag;
    }

    /** Records to the finest grain only, every coarser grain by roll-up. */
    public GrainRollupOperator(GrainRollup<K, IN, ACC, OUT> rollup, Grain[] grains, long allowedLatenessMs,
                               OutputTag<IN> lateTag) {
        this(rollup, grains, 1, allowedLatenessMs, lateTag);
    }

    /** Provisional rows before the watermark closes a window ({@link EarlyFiring}); set before the job runs. */
    public GrainRollupOperator<K, IN, ACC, OUT> earlyFiring(EarlyFiring earlyFiring) {
        this.early = Objects.requireNonNull(earlyFiring);
        return this;
    }

    protected EarlyFiring earlyFiring() {
        return early;
    }

    @Override
    public void open() throws Exception {
        super.open();
        accSerializer = rollup.accumulatorType().createSerializer(getExecutionConfig().getSerializerConfig());
        windows = getPartitionedState(new ValueStateDescriptor<>(STATE, new GrainWindowsSerializer<>(accSerializer)));
        timers = getInternalTimerService(TIMERS, VoidNamespaceSerializer.INSTANCE, this);
        rowRecord = new StreamRecord<>(null);
        watermarkMovedAtMs = Long.MIN_VALUE; // none yet: the stream counts as quiet
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        if (mark.getTimestamp() > timers.currentWatermark()) { // the timer service's, until super advances it
            watermarkMovedAtMs = getProcessingTimeService().getCurrentProcessingTime();
        }
        super.processWatermark(mark);
    }

    @Override
    public void processElement(StreamRecord<IN> record) throws Exception {
        IN in = record.getValue();
        long watermark = timers.currentWatermark();
        GrainWindows<ACC> w = windows.value();
        if (w == null) {
            w = new GrainWindows<>();
        }
        if (contribute(w, 0, rollup.eventTimeMs(in), in, null, watermark, true)) {
            windows.update(w);
        } else if (lateTag != null) {
            output.collect(lateTag, record);
        }
    }

    /**
     * Adds a record ({@code in}) or a finer window's accumulator ({@code acc}) at time {@code t} to its window of
     * grain {@code g} and, where that window has already fired (or is too late to exist), on to the coarser
     * grains. {@code fromRecord}: fire a window that is already due at once (a late record); a roll-up inside
     * {@link #onEventTime} leaves that to the coarser grain's own turn. Returns whether any window took it.
     */
    private boolean contribute(GrainWindows<ACC> w, int g, long t, IN in, ACC acc, long watermark,
                               boolean fromRecord) {
        boolean taken = false;
        if (in != null && early.enabled()) {
            showCoarserAgain(w, t);
        }
        for (; g < lengthsMs.length; g++) {
            long length = lengthsMs[g];
            long start = t - Math.floorMod(t, length);
            long last = start + length - 1;
            long cleanup = cleanupTime(last);
            if (fromRecord && cleanup <= watermark) {
                continue; // this grain's window is gone; coarser ones may still take it
            }
            // (A roll-up always finds its coarser window: that one fires no earlier, in this same pass at the
            // latest, and is dropped only after it; a watermark jump past both still fires both.)
            int i = w.find(length, start);
            boolean opened = i < 0;
            if (opened) {
                i = w.add(length, start, rollup.createAccumulator());
            }
            taken = true;
            if (in != null) {
                rollup.add(w.writable(i, accSerializer), in);
            } else {
                rollup.merge(w.writable(i, accSerializer), acc);
            }
            if (w.fired[i]) { // its earlier content is in the coarser windows already: this part goes there too
                emit(length, start, w.accumulator(i));
                rollup.compact(w.accumulator(i));
                continue;
            }
            if (last > watermark) {
                schedule(w, last);
                if (in != null && g < directGrains && early.enabled()) {
                    w.shown[i] = false;
                    scheduleEarly(w, last + 1);
                }
                if (in != null && g + 1 < directGrains) {
                    continue; // a record also goes straight to the next grain's window
                }
                return true; // the coarser windows get it when this one fires
            }
            if (!fromRecord) {
                return true; // due now: fires (and rolls up) in this timer's pass over its grain
            }
            // A record so late that its window opens already due: fire now; the coarser windows take what this
            // one holds and they have not seen (just this record, or this accumulator, when it was opened now).
            w.fired[i] = true;
            emit(length, start, w.accumulator(i));
            schedule(w, cleanup);
            if (!opened && g + 1 >= directGrains) {
                in = null;
                acc = w.accumulator(i);
            }
        }
        return taken;
    }

    /** Keeps the key's timer at or before its earliest due time (firing or cleanup). */
    private void schedule(GrainWindows<ACC> w, long dueMs) {
        if (dueMs < w.timerMs) {
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, dueMs);
            w.timerMs = dueMs;
        }
    }

    /**
     * Keeps a processing-time timer for the window ending at {@code endMs}: its end plus the delay, or a settle
     * time from now for a record that came after that. A pending timer that comes no later covers it.
     */
    private void scheduleEarly(GrainWindows<ACC> w, long endMs) {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        long due;
        if (now > endMs + early.delayMs() + EarlyFiring.HORIZON_MS) {
            // Not live (a backlog after an outage or a restore, samples sent at a step's end, a run stamped in the
            // past): the watermark closes it soon, unless the topics go quiet right after the backlog (its run
            // ended meanwhile). One check QUIET_MS later shows what the watermark left open then, this window and
            // the coarser ones (showQuietCoarseWindows); what it closed meanwhile is not shown twice.
            due = now + EarlyFiring.QUIET_MS;
        } else {
            due = Math.max(endMs + early.delayMs(), now + early.settleMs());
        }
        earlyTimer(w, now, due);
    }

    private void earlyTimer(GrainWindows<ACC> w, long now, long due) {
        if (w.earlyTimerMs > now && w.earlyTimerMs <= due) {
            return;
        }
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, due);
        w.earlyTimerMs = due;
    }

    /**
     * A coarser window shown while the watermark left it open (showQuietCoarseWindows) gets a record at {@code t}
     * only once the record's finer window fires, maybe never if the watermark stops inside it: its row is shown
     * again, or its newest row would lack the record (a producer catching up after an outage, then its run ends).
     */
    private void showCoarserAgain(GrainWindows<ACC> w, long t) {
        long now = getProcessingTimeService().getCurrentProcessingTime();
        for (int g = directGrains; g < lengthsMs.length; g++) {
            long length = lengthsMs[g];
            long start = t - Math.floorMod(t, length);
            if (start + length + EarlyFiring.QUIET_MS > now) {
                continue; // too recent to have been shown: a live record costs no search
            }
            int c = w.find(length, start);
            if (c >= 0 && w.shown[c] && !w.fired[c]) {
                w.shown[c] = false;
                earlyTimer(w, now, now + early.settleMs());
            }
        }
    }

    @Override
    public void onEventTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        GrainWindows<ACC> w = windows.value();
        if (w == null) {
            return;
        }
        long watermark = timers.currentWatermark();
        // Fire what is due, finest grain first: a window rolls into its coarser window before that one fires
        // (the windows of the finest directGrains - 1 grains do not: their records went on as they came).
        for (int g = 0; g < lengthsMs.length; g++) {
            for (int i = 0; i < w.size; i++) { // w.size may grow: a roll-up can open a coarser window
                long length = w.lengthMs[i];
                if (length != lengthsMs[g] || w.fired[i] || w.startMs[i] + length - 1 > watermark) {
                    continue;
                }
                w.fired[i] = true;
                // A provisional row of a direct grain showed this already (its flag resets with each record);
                // a coarser window's provisional row may miss a late record, so its final row always follows.
                if (!(early.skipUnchangedFinal() && w.shown[i] && g < directGrains)) {
                    emit(length, w.startMs[i], w.accumulator(i));
                }
                if (g + 1 >= directGrains) {
                    contribute(w, g + 1, w.startMs[i], null, w.accumulator(i), watermark, false);
                }
                rollup.compact(w.writable(i, accSerializer)); // from now on it only waits for late data
            }
        }
        // Drop what is past its lateness; the key's next timer is its earliest due time.
        long next = Long.MAX_VALUE;
        int kept = 0;
        for (int i = 0; i < w.size; i++) {
            long last = w.startMs[i] + w.lengthMs[i] - 1;
            long due = w.fired[i] ? cleanupTime(last) : last;
            if (due <= watermark) {
                continue; // fired and past its lateness (an unfired window is never due here: it just fired)
            }
            w.move(i, kept++);
            next = Math.min(next, due);
        }
        w.truncate(kept);
        if (kept == 0) {
            windows.clear();
            return;
        }
        // The registered timer at w.timerMs has fired if it is <= the watermark (this one, or one before it);
        // every window left is due after the watermark.
        if (w.timerMs <= watermark || next < w.timerMs) {
            timers.registerEventTimeTimer(VoidNamespace.INSTANCE, next);
            w.timerMs = next;
        }
        windows.update(w);
    }

    /** Early firing: a provisional row for every open direct-grain window that is due and not shown yet. */
    @Override
    public void onProcessingTime(InternalTimer<K, VoidNamespace> timer) throws Exception {
        GrainWindows<ACC> w = windows.value();
        if (w == null) {
            return;
        }
        long now = Math.max(timer.getTimestamp(), getProcessingTimeService().getCurrentProcessingTime());
        long next = Long.MAX_VALUE;
        for (int i = 0; i < w.size; i++) {
            if (w.fired[i] || w.shown[i] || !isDirect(w.lengthMs[i])) {
                continue;
            }
            long due = w.startMs[i] + w.lengthMs[i] + early.delayMs();
            if (due <= now) {
                w.shown[i] = true;
                emit(w.lengthMs[i], w.startMs[i], w.accumulator(i), true);
            } else {
                next = Math.min(next, due);
            }
        }
        next = Math.min(next, showQuietCoarseWindows(w, now));
        if (w.earlyTimerMs <= now) {
            w.earlyTimerMs = Long.MAX_VALUE; // this timer, or one before it, has fired
        }
        if (next < w.earlyTimerMs) {
            timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, next);
            w.earlyTimerMs = next;
        }
        windows.update(w);
    }

    /**
     * Provisional rows for the coarser grains' windows the watermark leaves open; returns when the next is due.
     *
     * <p>A coarser window takes its finer windows' content only when they fire on the watermark, and when the
     * topics go quiet (the end of a run) the watermark stops short of the last seconds: without this, a run's last
     * 10 s and 1 min windows would have no row until the next run's data moved event time. A window still open
     * {@link EarlyFiring#QUIET_MS} after its end, with a watermark that has not moved for
     * {@link EarlyFiring#STILL_MS}, is one the watermark is not closing (a live stream's closes it in 2-3 s; a backlog's moves on): its row is shown then
     * from its own content and that of its unfired finer windows. Its final row always follows (a late record may
     * have come in between).
     */
    private long showQuietCoarseWindows(GrainWindows<ACC> w, long now) {
        long next = Long.MAX_VALUE;
        // A watermark that moved within STILL_MS is closing the windows itself: a backlog being worked off, whose
        // windows all ended long ago by the wall clock. Shown then, every coarser window would be shown again at
        // each of its finer windows' roll-ups (showCoarserAgain): a row per record and grain.
        long quietFrom = watermarkMovedAtMs == Long.MIN_VALUE ? Long.MIN_VALUE
                : watermarkMovedAtMs + EarlyFiring.STILL_MS;
        for (int g = directGrains; g < lengthsMs.length; g++) {
            long length = lengthsMs[g];
            for (int i = 0; i < w.size; i++) { // w.size may grow: a window shown for the first time is added
                if (w.fired[i] || w.lengthMs[i] > length) {
                    continue; // content rolled up already, or coarser: the window itself or a finer one counts
                }
                long start = w.startMs[i] - Math.floorMod(w.startMs[i], length);
                int c = w.find(length, start);
                if (c >= 0 && (w.fired[c] || w.shown[c])) {
                    continue;
                }
                long due = Math.max(start + length + EarlyFiring.QUIET_MS, quietFrom);
                if (due > now) {
                    next = Math.min(next, due);
                    continue;
                }
                if (c < 0) {
                    c = w.add(length, start, rollup.createAccumulator()); // empty: roll-ups still fill it
                }
                w.shown[c] = true;
                emit(length, start, content(w, g, start), true);
            }
        }
        return next;
    }

    /**
     * A fresh accumulator with what window (grain g, start) holds once its unfired finer windows have rolled into
     * it: a direct grain's window has every record already; a coarser one also its unfired finer windows'.
     */
    private ACC content(GrainWindows<ACC> w, int g, long start) {
        ACC out = rollup.createAccumulator();
        long length = lengthsMs[g];
        int own = w.find(length, start);
        if (own >= 0) {
            rollup.merge(out, w.accumulator(own));
        }
        if (g < directGrains) {
            return out;
        }
        long finer = lengthsMs[g - 1];
        for (int i = 0; i < w.size; i++) {
            if (w.lengthMs[i] == finer && !w.fired[i] && w.startMs[i] >= start && w.startMs[i] < start + length) {
                rollup.merge(out, content(w, g - 1, w.startMs[i]));
            }
        }
        return out;
    }

    /** Whether records go straight into windows of this length (the finest directGrains grains). */
    private boolean isDirect(long lengthMs) {
        for (int g = 0; g < directGrains; g++) {
            if (lengthsMs[g] == lengthMs) {
                return true;
            }
        }
        return false;
    }

    private void emit(long length, long start, ACC acc) {
        emit(length, start, acc, false);
    }

    @SuppressWarnings("unchecked")
    private void emit(long length, long start, ACC acc, boolean provisional) {
        K key = (K) getCurrentKey();
        OUT row = rollup.row(key, Grain.ofWindowMs(length), start, acc);
        if (row instanceof RollupRow r) {
            r.provisional = provisional;
        }
        output.collect(rowRecord.replace(row, start + length - 1));
    }

    private long cleanupTime(long lastMs) {
        long cleanup = lastMs + allowedLatenessMs;
        return cleanup >= lastMs ? cleanup : Long.MAX_VALUE;
    }
}
