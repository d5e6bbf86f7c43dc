package io.ioscale.functions;

import io.ioscale.records.FleetRollup;
import io.ioscale.records.Grain;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Thin window function: accumulator plus (run, step) and window bounds make one {@link FleetRollup}. */
public class FleetRollupWindow extends ProcessWindowFunction<IoAccumulator, FleetRollup, Tuple2<String, Integer>,
        TimeWindow> {
    private static final long serialVersionUID = 1L;


    @Override
    public void process(Tuple2<String, Integer> key, Context ctx, Iterable<IoAccumulator> accs,
                        Collector<FleetRollup> out) {
        IoAccumulator acc = accs.iterator().next();
        TimeWindow w = ctx.window();
        FleetRollup r = new FleetRollup();
        r.grain = Grain.ofWindowMs(w.getEnd() - w.getStart());
        r.windowStartMs = w.getStart();
        r.windowEndMs = w.getEnd();
        r.runId = key.f0;
        r.stepIndex = key.f1;
        r.sources = acc.sources == null ? 0 : acc.sources.size();
        r.stats = acc.toStats(w.getEnd() - w.getStart());
        r.emittedAtMs = System.currentTimeMillis();
        out.collect(r);
    }
}
