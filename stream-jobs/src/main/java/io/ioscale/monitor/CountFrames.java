package io.ioscale.monitor;

import io.ioscale.avro.WireFrame;
import org.apache.flink.api.common.functions.AggregateFunction;

/** Incremental window aggregate: one record and its value size per frame; O(1) state per key and window. */
public class CountFrames implements AggregateFunction<WireFrame, FrameCounts, FrameCounts> {

    @Override
    public FrameCounts createAccumulator() {
        return new FrameCounts();
    }

    @Override
    public FrameCounts add(WireFrame frame, FrameCounts acc) {
        acc.records += 1;
        acc.bytes += frame.sizeBytes();
        return acc;
    }

    @Override
    public FrameCounts getResult(FrameCounts acc) {
        return acc;
    }

    @Override
    public FrameCounts merge(FrameCounts a, FrameCounts b) {
        return new FrameCounts(a.records + b.records, a.bytes + b.bytes);
    }
}
