package io.ioscale.functions;

import io.ioscale.records.CpuRollup;
import io.ioscale.records.Grain;
import io.ioscale.records.IoStats;
import org.apache.flink.api.java.tuple.Tuple5;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/** Thin window function: {@link CpuAccumulator} plus key and window bounds make one {@link CpuRollup}. */
public class CpuRollupWindow extends ProcessWindowFunction<CpuAccumulator, CpuRollup,
        Tuple5<String, Integer, String, String, String>, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final Grain grain;

    public CpuRollupWindow(Grain grain) {
        this.grain = grain;
    }

    @Override
    public void process(Tuple5<String, Integer, String, String, String> key, Context ctx,
                        Iterable<CpuAccumulator> accs, Collector<CpuRollup> out) {
        CpuAccumulator a = accs.iterator().next();
        TimeWindow w = ctx.window();
        CpuRollup r = new CpuRollup();
        r.grain = grain;
        r.windowStartMs = w.getStart();
        r.windowEndMs = w.getEnd();
        r.runId = key.f0;
        r.stepIndex = key.f1;
        r.host = key.f2;
        r.vm = key.f3;
        r.scope = key.f4;
        r.samples = a.samples;
        r.perCpuSamples = a.perCpuSamples;
        r.logicalProcessors = a.logicalProcessors;
        if (a.samples > 0) {
            double t = a.intervalMs;
            r.utilizationPct = a.utilization / t;
            r.maxUtilizationPct = a.maxUtilizationPct;
            r.userPct = a.user / t;
            r.privilegedPct = a.privileged / t;
            r.dpcPct = a.dpc / t;
            r.interruptPct = a.interrupt / t;
            r.iowaitPct = a.iowait / t;
            r.interruptsPerS = a.interruptsPerS / t;
            r.dpcsPerS = a.dpcsPerS / t;
        } else if (a.perCpuSamples > 0) {
            double t = a.perCpuIntervalMs;
            r.utilizationPct = a.perCpuUtilization / t;
            r.userPct = a.perCpuUser / t;
            r.privilegedPct = a.perCpuPrivileged / t;
            r.dpcPct = a.perCpuDpc / t;
            r.interruptPct = a.perCpuInterrupt / t;
            r.iowaitPct = a.perCpuIowait / t;
            // Rates add up across CPUs: sum(rate x interval) over the window's time.
            double windowS = IoStats.rateDivisorS(w.getEnd() - w.getStart(), a.maxIntervalMs);
            r.interruptsPerS = a.perCpuInterruptsPerS / 1000.0 / windowS;
            r.dpcsPerS = a.perCpuDpcsPerS / 1000.0 / windowS;
        }
        r.maxCpuUtilizationPct = a.maxCpuUtilizationPct;
        r.hottestCpu = a.hottestCpu;
        r.emittedAtMs = System.currentTimeMillis();
        out.collect(r);
    }
}
