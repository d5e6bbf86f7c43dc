package io.ioscale.functions;

import io.ioscale.records.Grain;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Tumbling event-time windows of several grains at once: each record goes to its 1 s, 10 s and 1 min window (like
 * a sliding assigner, several windows per record). One window operator then serves all grains of a key family,
 * instead of one operator per grain, each needing its own network shuffle (serialize, deserialize) of every
 * sample: bench/flink_job_bench.md measured the difference. The window function tells the grain by the window's
 * length ({@link Grain#ofWindowMs}).
 *
 * <p>Lateness is per window: a record too late for its 1 s window but not for its 10 s one still updates the
 * 10 s and 1 min rows; only a record too late for every grain reaches the late side output.
 */
public class MultiGrainWindows extends WindowAssigner<Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final long[] sizesMs;

    public MultiGrainWindows(Grain... grains) {
        sizesMs = new long[grains.length];
        for (int i = 0; i < grains.length; i++) {
            sizesMs[i] = grains[i].windowMs();
        }
    }

    @Override
    public Collection<TimeWindow> assignWindows(Object element, long timestamp, WindowAssignerContext context) {
        if (timestamp == Long.MIN_VALUE) {
            throw new IllegalStateException("record without event time: is the watermark strategy set?");
        }
        List<TimeWindow> out = new ArrayList<>(sizesMs.length);
        for (long size : sizesMs) {
            long start = TimeWindow.getWindowStartWithOffset(timestamp, 0, size);
            out.add(new TimeWindow(start, start + size));
        }
        return out;
    }

    @Override
    public Trigger<Object, TimeWindow> getDefaultTrigger() {
        return EventTimeTrigger.create();
    }

    @Override
    public TypeSerializer<TimeWindow> getWindowSerializer(ExecutionConfig executionConfig) {
        return new TimeWindow.Serializer();
    }

    @Override
    public boolean isEventTime() {
        return true;
    }

    @Override
    public String toString() {
        return "MultiGrainWindows" + java.util.Arrays.toString(sizesMs);
    }
}
