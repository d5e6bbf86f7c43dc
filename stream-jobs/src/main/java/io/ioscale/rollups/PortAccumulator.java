package io.ioscale.rollups;

import io.ioscale.records.PortSample;
import io.ioscale.sources.LinkCapacityRule;

/** Window state of the port rollups: byte, frame and error sums, and the best known capacity. */
public class PortAccumulator implements SampleRollup.Accumulator<PortSample, PortAccumulator> {
    public long samples;
    public long rxBytes;
    public long txBytes;
    public long rxFrames;
    public long txFrames;
    public long rxErrors;
    public long txErrors;
    public long interrupts;
    public long maxIntervalMs;
    public long linkSpeedBps;
    public double capacityBytesPerS;
    public String capacitySource = LinkCapacityRule.UNKNOWN;
    public boolean fullDuplex = true;
    public String kind = "";
    public String vm = "";

    public PortAccumulator() {}

    @Override
    public void add(PortSample s) {
        samples++;
        rxBytes += s.rxBytes;
        txBytes += s.txBytes;
        rxFrames += s.rxFrames;
        txFrames += s.txFrames;
        rxErrors += s.rxErrors;
        txErrors += s.txErrors;
        interrupts += s.interrupts;
        maxIntervalMs = Math.max(maxIntervalMs, s.intervalMs);
        linkSpeedBps = Math.max(linkSpeedBps, s.linkSpeedBps);
        keepBestCapacity(s.capacityBytesPerS, s.capacitySource, s.fullDuplex);
        kind = s.kind;
        vm = s.vm;
    }

    @Override
    public PortAccumulator merge(PortAccumulator o) {
        samples += o.samples;
        rxBytes += o.rxBytes;
        txBytes += o.txBytes;
        rxFrames += o.rxFrames;
        txFrames += o.txFrames;
        rxErrors += o.rxErrors;
        txErrors += o.txErrors;
        interrupts += o.interrupts;
        maxIntervalMs = Math.max(maxIntervalMs, o.maxIntervalMs);
        linkSpeedBps = Math.max(linkSpeedBps, o.linkSpeedBps);
        keepBestCapacity(o.capacityBytesPerS, o.capacitySource, o.fullDuplex);
        if (!o.kind.isEmpty()) {
            kind = o.kind;
            vm = o.vm;
        }
        return this;
    }

    /** The best known capacity wins (see {@link LinkCapacityRule#supersedes}), with its source and duplex. */
    private void keepBestCapacity(double bytesPerS, String source, boolean duplex) {
        if (LinkCapacityRule.supersedes(source, bytesPerS, capacitySource, capacityBytesPerS)) {
            capacityBytesPerS = bytesPerS;
            capacitySource = source;
            fullDuplex = duplex;
        }
    }
}
