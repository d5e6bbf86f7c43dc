package io.ioscale.rollups;

import io.ioscale.records.Grain;
import io.ioscale.records.IoStats;
import io.ioscale.records.PortRollupRow;
import io.ioscale.records.PortSample;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple5;

/**
 * port_samples_{1s,10s,1m}: per (run, step, host, port, queue), utilization vs capacity (see {@link PortRollupRow}).
 */
public class PortRollup extends SampleRollup<Tuple5<String, Integer, String, String, Integer>, PortSample,
        PortAccumulator, PortRollupRow> {
    private static final long serialVersionUID = 1L;

    /** (run, step, host, port, queue). */
    public static final class Key implements KeySelector<PortSample, Tuple5<String, Integer, String, String, Integer>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple5<String, Integer, String, String, Integer> getKey(PortSample s) {
            return Tuple5.of(s.runId, s.stepIndex, s.host, s.portId, s.queue);
        }
    }

    public PortRollup() {
        super(PortAccumulator.class, PortAccumulator::new);
    }

    @Override
    public PortRollupRow row(Tuple5<String, Integer, String, String, Integer> key, Grain grain, long windowStartMs,
                             PortAccumulator a) {
        double t = IoStats.rateDivisorS(grain.windowMs(), a.maxIntervalMs);
        PortRollupRow r = new PortRollupRow();
        r.setWindow(grain, windowStartMs, key.f0, key.f1);
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
        return r;
    }
}
