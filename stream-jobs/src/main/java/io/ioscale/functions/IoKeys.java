package io.ioscale.functions;

import io.ioscale.records.IoSample;
import io.ioscale.rollups.FleetPartial;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple6;

/** Keys of the I/O rollups, as Flink tuples (Flink's own serializer and a stable hash across JVMs). */
public final class IoKeys {
    private IoKeys() {}

    /** (run_id, step_index, host, vm, target, direction): one source and direction. */
    public static final class BySource implements KeySelector<IoSample, Tuple6<String, Integer, String, String, String, String>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple6<String, Integer, String, String, String, String> getKey(IoSample s) {
            return Tuple6.of(s.runId, s.stepIndex, s.host, s.vm, s.target, s.direction);
        }
    }

    /** (run_id, step_index): the fleet of one load step, fed by the per-source subtasks' partials. */
    public static final class ByStep implements KeySelector<FleetPartial, Tuple2<String, Integer>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<String, Integer> getKey(FleetPartial p) {
            return Tuple2.of(p.runId, p.stepIndex);
        }
    }
}
