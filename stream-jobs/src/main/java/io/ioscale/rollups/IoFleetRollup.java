package io.ioscale.rollups;

import io.ioscale.functions.IoAccumulator;
import io.ioscale.records.FleetRollup;
import io.ioscale.records.Grain;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * io_fleet_{1s,10s,1m}: per (run, step), from the per-subtask {@link FleetPartial}s; the histogram is the merge of
 * every sample of the window, the sources the union of the partials' sets.
 */
public class IoFleetRollup extends IoGrainRollup<Tuple2<String, Integer>, FleetPartial, FleetRollup> {
    private static final long serialVersionUID = 1L;

    @Override
    public long eventTimeMs(FleetPartial p) {
        return p.secondStartMs;
    }

    @Override
    public IoAccumulator createAccumulator() {
        return IoAccumulator.forFleet();
    }

    @Override
    public void add(IoAccumulator acc, FleetPartial p) {
        acc.merge(p.acc);
    }

    @Override
    public FleetRollup row(Tuple2<String, Integer> key, Grain grain, long windowStartMs, IoAccumulator acc) {
        FleetRollup r = new FleetRollup();
        r.setWindow(grain, windowStartMs, key.f0, key.f1);
        r.sources = acc.sources == null ? 0 : acc.sources.size();
        r.stats = acc.toStats(grain.windowMs());
        return r;
    }

    @Override
    public long samples(FleetPartial p) {
        return p.samples();
    }
}
