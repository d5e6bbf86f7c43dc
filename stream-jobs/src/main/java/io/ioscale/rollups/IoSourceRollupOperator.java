package io.ioscale.rollups;

import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.IoSample;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple6;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.util.OutputTag;

/**
 * The per-source I/O rollups ({@link IoSourceRollup}, every grain), which also pre-merge the fleet's input: each
 * sample is added to this subtask's {@link FleetPartial} of its (run, step, second), and only the partials go to
 * the fleet rollup (side output {@link #FLEET_PARTIALS}).
 *
 * <p>Why: the fleet rollup is keyed by (run, step); fed with samples, one subtask would receive every sample of a
 * step, after a second shuffle that serializes each sample's histogram again. Fed with partials, it receives one
 * per second per source subtask, and the merging is spread over the per-source subtasks.
 *
 * <p>Same results, and the same lateness: a partial is emitted when the watermark passes the end of its second,
 * before that watermark is forwarded, so the fleet rollup sees it exactly when it would have seen its samples
 * (on time). A sample that arrives after its second was emitted starts a new partial, emitted with the next
 * watermark; the fleet rollup judges it late, merges it into the fired window, or counts it as too late, like
 * the sample itself. Every partial still open is emitted before a checkpoint barrier (partials add up, so an early
 * partial is fine), so this operator keeps no extra state and a restore loses nothing.
 *
 * <p>With early firing ({@link EarlyFiring}), partials are also emitted on a processing-time tick once their
 * second ended the early-firing delay ago (wall clock), so the fleet rollup can show a live second before the
 * watermark closes it. An early partial is on time downstream, like any partial sent before the watermark.
 */
public final class IoSourceRollupOperator extends GrainRollupOperator<Tuple6<String, Integer, String, String, String,
        String>, IoSample, IoAccumulator, IoRollupRow> {
    private static final long serialVersionUID = 1L;
    private static final long SECOND_MS = Grain.S1.windowMs();

    public static final OutputTag<FleetPartial> FLEET_PARTIALS =
            new OutputTag<>("fleet-partials", TypeInformation.of(FleetPartial.class));

    /** Open partials by (run, step, second), oldest first. */
    private transient Map<PartialKey, FleetPartial> partials;
    /** The partial the previous sample went to: consecutive samples usually share it. */
    private transient FleetPartial last;

    /** Samples go to their 1 s and 10 s windows as they arrive, the minute by roll-up (GrainRollupOperator). */
    public IoSourceRollupOperator(Grain[] grains, long allowedLatenessMs, OutputTag<IoSample> lateTag) {
        super(new IoSourceRollup(), grains, Math.min(2, grains.length), allowedLatenessMs, lateTag);
    }

    @Override
    public void open() throws Exception {
        super.open();
        partials = new LinkedHashMap<>();
        if (earlyFiring().enabled()) {
            ProcessingTimeService time = getProcessingTimeService();
            time.registerTimer(time.getCurrentProcessingTime() + earlyFiring().settleMs(), this::onPartialTick);
        }
    }

    /**
     * Early firing: partials whose second ended the early-firing delay ago go to the fleet now; older ones (a
     * backlog: see EarlyFiring.HORIZON_MS) wait for the watermark.
     */
    private void onPartialTick(long nowMs) {
        long dueMs = nowMs - earlyFiring().delayMs();
        emitPartials(dueMs - EarlyFiring.HORIZON_MS, dueMs);
        ProcessingTimeService time = getProcessingTimeService();
        time.registerTimer(Math.max(nowMs, time.getCurrentProcessingTime()) + earlyFiring().settleMs(),
                this::onPartialTick);
    }

    @Override
    public void processElement(StreamRecord<IoSample> record) throws Exception {
        super.processElement(record);
        IoSample s = record.getValue();
        long second = s.tsMs - Math.floorMod(s.tsMs, SECOND_MS);
        FleetPartial p = last;
        if (p == null || p.secondStartMs != second || p.stepIndex != s.stepIndex || !p.runId.equals(s.runId)) {
            p = partials.computeIfAbsent(new PartialKey(s.runId, s.stepIndex, second),
                    k -> new FleetPartial(k.runId(), k.stepIndex(), k.secondStartMs()));
            last = p;
        }
        p.acc.add(s);
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        emitPartials(Long.MIN_VALUE, mark.getTimestamp()); // before the watermark goes downstream: the fleet sees them on time
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        emitPartials(Long.MIN_VALUE, Long.MAX_VALUE); // nothing open crosses a checkpoint: no state to keep
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void finish() throws Exception {
        emitPartials(Long.MIN_VALUE, Long.MAX_VALUE);
        super.finish();
    }

    /** Emits the partials whose second's last millisecond is in [{@code fromMs}, {@code toMs}]. */
    private void emitPartials(long fromMs, long toMs) {
        for (Iterator<FleetPartial> it = partials.values().iterator(); it.hasNext(); ) {
            FleetPartial p = it.next();
            long lastMs = p.secondStartMs + SECOND_MS - 1;
            if (lastMs <= toMs && lastMs >= fromMs) {
                output.collect(FLEET_PARTIALS, new StreamRecord<>(p, p.secondStartMs));
                it.remove();
                if (p == last) {
                    last = null;
                }
            }
        }
    }

    private record PartialKey(String runId, int stepIndex, long secondStartMs) {}
}
