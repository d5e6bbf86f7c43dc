package io.ioscale.functions;

import io.ioscale.records.PortSample;
import org.apache.flink.api.common.functions.AggregateFunction;

/** Incremental aggregate of the port rollups (see {@link PortAccumulator}). */
public class AggregatePort implements AggregateFunction<PortSample, PortAccumulator, PortAccumulator> {
    private static final long serialVersionUID = 1L;

    @Override
    public PortAccumulator createAccumulator() {
        return new PortAccumulator();
    }

    @Override
    public PortAccumulator add(PortSample s, PortAccumulator acc) {
        acc.add(s);
        return acc;
    }

    @Override
    public PortAccumulator getResult(PortAccumulator acc) {
        return acc;
    }

    @Override
    public PortAccumulator merge(PortAccumulator a, PortAccumulator b) {
        return a.merge(b);
    }
}
