package io.ioscale.functions;

import io.ioscale.records.CpuSample;
import org.apache.flink.api.common.functions.AggregateFunction;

/** Incremental aggregate of the CPU rollups (see {@link CpuAccumulator}). */
public class AggregateCpu implements AggregateFunction<CpuSample, CpuAccumulator, CpuAccumulator> {
    private static final long serialVersionUID = 1L;

    @Override
    public CpuAccumulator createAccumulator() {
        return new CpuAccumulator();
    }

    @Override
    public CpuAccumulator add(CpuSample s, CpuAccumulator acc) {
        acc.add(s);
        return acc;
    }

    @Override
    public CpuAccumulator getResult(CpuAccumulator acc) {
        return acc;
    }

    @Override
    public CpuAccumulator merge(CpuAccumulator a, CpuAccumulator b) {
        return a.merge(b);
    }
}
