package io.ioscale.rollups;

import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.IoSample;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple6;

/** io_samples_{1s,10s,1m}: per source (run, step, host, vm, target, direction), see {@link IoAccumulator}. */
public class IoSourceRollup
        extends IoGrainRollup<Tuple6<String, Integer, String, String, String, String>, IoSample, IoRollupRow> {
    private static final long serialVersionUID = 1L;

    /** (run_id, step_index, host, vm, target, direction): one source and direction. */
    public static final class Key implements KeySelector<IoSample, Tuple6<String, Integer, String, String, String, String>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple6<String, Integer, String, String, String, String> getKey(IoSample s) {
            return Tuple6.of(s.runId, s.stepIndex, s.host, s.vm, s.target, s.direction);
        }
    }

    @Override
    public long eventTimeMs(IoSample s) {
        return s.tsMs;
    }

    @Override
    public IoAccumulator createAccumulator() {
        return new IoAccumulator();
    }

    @Override
    public void add(IoAccumulator acc, IoSample s) {
        acc.add(s);
    }

    @Override
    public IoRollupRow row(Tuple6<String, Integer, String, String, String, String> key, Grain grain, long windowStartMs,
                           IoAccumulator acc) {
        IoRollupRow r = new IoRollupRow();
        r.setWindow(grain, windowStartMs, key.f0, key.f1);
        r.host = key.f2;
        r.vm = key.f3;
        r.target = key.f4;
        r.direction = key.f5;
        r.stats = acc.toStats(grain.windowMs());
        return r;
    }
}
