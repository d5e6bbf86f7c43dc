package io.ioscale.functions;

import io.ioscale.records.Grain;
import io.ioscale.records.IoStats;
import io.ioscale.records.PortRollup;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Thin window function: {@link PortAccumulator} plus key and window bounds make one {@link PortRollup}. */
public class PortRollupWindow extends ProcessWindowFunction<PortAccumulator, PortRollup,
        Tuple5<String, Integer, String, String, Integer>, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final Grain grain;

    public PortRollupWindow(Grain grain) {
        this.grain = grain;
    }

    @Override
    public void process(Tuple5<String, Integer, String, String, Integer> key, Context ctx,
                        Iterable<PortAccumulator> accs, Collector<PortRollup> out) {
        PortAccumulator a = accs.iterator().next();
        TimeWindow w = ctx.window();
        double t = IoStats.rateDivisorS(w.getEnd() - w.getStart(), a.maxIntervalMs);
        PortRollup r = new PortRollup();
        r.grain = grain;
        r.windowStartMs = w.getStart();
        r.windowEndMs = w.getEnd();
        r.runId = key.f0;
        r.stepIndex = key.f1;
        r.host = key.f2;
        r.portId = key.f3;
        r.queue = key.f4;
        r.kind = a.kind;
        r.vm = a.vm;
        r.samples = a.samples;
        r.rxBytes = a.rxBytes;
        r.txBytes = a.txBytes;
        r.rxFrames = a.rxFrames;
        r.txFrames = a.txFrames;
        r.rxErrors = a.rxErrors;
        r.txErrors = a.txErrors;
        r.interrupts = a.interrupts;
        r.rxMbPerS = a.rxBytes / 1e6 / t;
        r.txMbPerS = a.txBytes / 1e6 / t;
        r.interruptsPerS = a.interrupts / t;
        r.linkSpeedBps = a.linkSpeedBps;
        r.fullDuplex = a.fullDuplex;
        r.capacitySource = a.capacitySource;
        if (a.capacityBytesPerS > 0) {
            r.capacityBytesPerS = a.capacityBytesPerS;
            double rx = a.rxBytes / t;
            double tx = a.txBytes / t;
            r.rxUtilizationPct = (a.fullDuplex ? rx : rx + tx) / a.capacityBytesPerS * 100;
            r.txUtilizationPct = (a.fullDuplex ? tx : rx + tx) / a.capacityBytesPerS * 100;
        }
        r.emittedAtMs = System.currentTimeMillis();
        out.collect(r);
    }
}
