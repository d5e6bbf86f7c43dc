package io.ioscale.rollups;

import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;

/**
 * io_fleet_{1s,10s,1m}: per (run, step), from the per-subtask {@link FleetPartial}s; the histogram is the merge of
 * every sample of the window, the sources the union of the partials' sets.
 */
public class IoFleetRollup extends IoGrainRollup<Tuple2<String, Integer>, FleetPartial, FleetRollupRow> {
    private static final long serialVersionUID = 1L;

    /** (run_id, step_index): the fleet of one load step, fed by the per-source subtasks' partials. */
    public static final class Key implements KeySelector<FleetPartial, Tuple2<String, Integer>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<String, Integer> getKey(FleetPartial p) {
            return Tuple2.of(p.runId, p.stepIndex);
        }
    }

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
    public FleetRollupRow row(Tuple2<String, Integer> key, Grain grain, long windowStartMs, IoAccumulator acc) {
        FleetRollupRow r = new FleetRollupRow();
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
