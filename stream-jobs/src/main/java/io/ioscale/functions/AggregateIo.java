package io.ioscale.functions;

import io.ioscale.records.IoSample;
import org.apache.flink.api.common.functions.AggregateFunction;

/**
 * Incremental aggregate of the I/O rollups: one {@link IoAccumulator} per key and window, each sample merged in
 * as it arrives (the window never buffers samples). {@code fleet} also tracks the distinct sources.
 */
public class AggregateIo implements AggregateFunction<IoSample, IoAccumulator, IoAccumulator> {
    private static final long serialVersionUID = 1L;

    private final boolean fleet;

    public AggregateIo(boolean fleet) {
        this.fleet = fleet;
    }

    @Override
    public IoAccumulator createAccumulator() {
        return fleet ? IoAccumulator.forFleet() : new IoAccumulator();
    }

    @Override
    public IoAccumulator add(IoSample sample, IoAccumulator acc) {
        acc.add(sample);
        return acc;
    }

    @Override
    public IoAccumulator getResult(IoAccumulator acc) {
        return acc;
    }

    @Override
    public IoAccumulator merge(IoAccumulator a, IoAccumulator b) {
        return a.merge(b);
    }
}
