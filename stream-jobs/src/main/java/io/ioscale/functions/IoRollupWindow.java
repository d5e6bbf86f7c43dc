package io.ioscale.functions;

import io.ioscale.records.Grain;
import io.ioscale.records.IoRollup;
import org.apache.flink.api.java.tuple.Tuple6;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Thin window function: the pre-aggregated accumulator plus key and window bounds make one {@link IoRollup}. */
public class IoRollupWindow extends ProcessWindowFunction<IoAccumulator, IoRollup,
        Tuple6<String, Integer, String, String, String, String>, TimeWindow> {
    private static final long serialVersionUID = 1L;


    @Override
    public void process(Tuple6<String, Integer, String, String, String, String> key, Context ctx,
                        Iterable<IoAccumulator> accs, Collector<IoRollup> out) {
        IoAccumulator acc = accs.iterator().next();
        TimeWindow w = ctx.window();
        IoRollup r = new IoRollup();
        r.grain = Grain.ofWindowMs(w.getEnd() - w.getStart());
        r.windowStartMs = w.getStart();
        r.windowEndMs = w.getEnd();
        r.runId = key.f0;
        r.stepIndex = key.f1;
        r.host = key.f2;
        r.vm = key.f3;
        r.target = key.f4;
        r.direction = key.f5;
        r.stats = acc.toStats(w.getEnd() - w.getStart());
        r.emittedAtMs = System.currentTimeMillis();
        out.collect(r);
    }
}
