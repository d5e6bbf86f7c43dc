package io.ioscale.rollups;

import io.ioscale.records.CpuRollupRow;
import io.ioscale.records.CpuSample;
import io.ioscale.records.Grain;
import io.ioscale.records.IoStats;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple5;

/** cpu_samples_{1s,10s,1m}: per (run, step, host, vm, scope), interval-weighted (see {@link CpuRollupRow}). */
public class CpuRollup
        extends SampleRollup<Tuple5<String, Integer, String, String, String>, CpuSample, CpuAccumulator, CpuRollupRow> {
    private static final long serialVersionUID = 1L;

    /** (run, step, host, vm, scope). */
    public static final class Key implements KeySelector<CpuSample, Tuple5<String, Integer, String, String, String>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple5<String, Integer, String, String, String> getKey(CpuSample s) {
            return Tuple5.of(s.runId, s.stepIndex, s.host, s.vm, s.scope);
        }
    }

    public CpuRollup() {
        super(CpuAccumulator.class, CpuAccumulator::new);
    }

    @Override
    public CpuRollupRow row(Tuple5<String, Integer, String, String, String> key, Grain grain, long windowStartMs,
                            CpuAccumulator a) {
        CpuRollupRow r = new CpuRollupRow();
        r.setWindow(grain, windowStartMs, key.f0, key.f1);
        r.host = key.f2;
        r.vm = key.f3;
        r.scope = key.f4;
        r.samples = a.samples;
        r.perCpuSamples = a.perCpuSamples;
        r.logicalProcessors = a.logicalProcessors;
        if (a.samples > 0) {
            double t = a.intervalMs;
            percentages(r, t, a.utilization, a.user, a.privileged, a.dpc, a.interrupt, a.iowait);
            r.maxUtilizationPct = a.maxUtilizationPct;
            r.interruptsPerS = a.interruptsPerS / t;
            r.dpcsPerS = a.dpcsPerS / t;
        } else if (a.perCpuSamples > 0) {
            percentages(r, a.perCpuIntervalMs, a.perCpuUtilization, a.perCpuUser, a.perCpuPrivileged, a.perCpuDpc,
                    a.perCpuInterrupt, a.perCpuIowait);
            // Rates add up across CPUs: sum(rate x interval) over the window's time.
            double windowS = IoStats.rateDivisorS(grain.windowMs(), a.maxIntervalMs);
            r.interruptsPerS = a.perCpuInterruptsPerS / 1000.0 / windowS;
            r.dpcsPerS = a.perCpuDpcsPerS / 1000.0 / windowS;
        }
        r.maxCpuUtilizationPct = a.maxCpuUtilizationPct;
        r.hottestCpu = a.hottestCpu;
        return r;
    }

    /** The time-weighted means: each sum of (pct x interval_ms) over the summed interval {@code t}. */
    private static void percentages(CpuRollupRow r, double t, double utilization, double user, double privileged,
                                    double dpc, double interrupt, double iowait) {
        r.utilizationPct = utilization / t;
        r.userPct = user / t;
        r.privilegedPct = privileged / t;
        r.dpcPct = dpc / t;
        r.interruptPct = interrupt / t;
        r.iowaitPct = iowait / t;
    }
}
