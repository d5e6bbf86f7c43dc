package io.ioscale.rollups;

import io.ioscale.records.CpuSample;

/** Window state of the CPU rollups: interval-weighted sums of the total samples and of the per-CPU samples. */
public class CpuAccumulator implements SampleRollup.Accumulator<CpuSample, CpuAccumulator> {
    // Totals (cpu = -1).
    public long samples;
    public double intervalMs;
    public double utilization;
    public double user;
    public double privileged;
    public double dpc;
    public double interrupt;
    public double iowait;
    public double interruptsPerS;
    public double dpcsPerS;
    public double maxUtilizationPct = Double.NaN;
    public int logicalProcessors;
    // Per CPU (cpu >= 0): the same sums as the totals, as flat fields rather than a second object, since an
    // accumulator is made per key and 1 s window.
    public long perCpuSamples;
    public double perCpuIntervalMs;
    public double perCpuUtilization;
    public double perCpuUser;
    public double perCpuPrivileged;
    public double perCpuDpc;
    public double perCpuInterrupt;
    public double perCpuIowait;
    public double perCpuInterruptsPerS;
    public double perCpuDpcsPerS;
    public double maxCpuUtilizationPct = Double.NaN;
    public int hottestCpu = -1;
    public long maxIntervalMs;

    public CpuAccumulator() {}

    @Override
    public void add(CpuSample s) {
        double w = Math.max(s.intervalMs, 1);
        maxIntervalMs = Math.max(maxIntervalMs, s.intervalMs);
        if (s.isTotal()) {
            samples++;
            intervalMs += w;
            utilization += s.utilizationPct * w;
            user += s.userPct * w;
            privileged += s.privilegedPct * w;
            dpc += s.dpcPct * w;
            interrupt += s.interruptPct * w;
            iowait += s.iowaitPct * w;
            interruptsPerS += s.interruptsPerS * w;
            dpcsPerS += s.dpcsPerS * w;
            maxUtilizationPct = Double.isNaN(maxUtilizationPct) ? s.utilizationPct
                    : Math.max(maxUtilizationPct, s.utilizationPct);
            logicalProcessors = Math.max(logicalProcessors, s.logicalProcessors);
        } else {
            perCpuSamples++;
            perCpuIntervalMs += w;
            perCpuUtilization += s.utilizationPct * w;
            perCpuUser += s.userPct * w;
            perCpuPrivileged += s.privilegedPct * w;
            perCpuDpc += s.dpcPct * w;
            perCpuInterrupt += s.interruptPct * w;
            perCpuIowait += s.iowaitPct * w;
            perCpuInterruptsPerS += s.interruptsPerS * w;
            perCpuDpcsPerS += s.dpcsPerS * w;
            if (Double.isNaN(maxCpuUtilizationPct) || s.utilizationPct > maxCpuUtilizationPct) {
                maxCpuUtilizationPct = s.utilizationPct;
                hottestCpu = s.cpu;
            }
        }
    }

    @Override
    public CpuAccumulator merge(CpuAccumulator o) {
        samples += o.samples;
        intervalMs += o.intervalMs;
        utilization += o.utilization;
        user += o.user;
        privileged += o.privileged;
        dpc += o.dpc;
        interrupt += o.interrupt;
        iowait += o.iowait;
        interruptsPerS += o.interruptsPerS;
        dpcsPerS += o.dpcsPerS;
        if (!Double.isNaN(o.maxUtilizationPct)) {
            maxUtilizationPct = Double.isNaN(maxUtilizationPct) ? o.maxUtilizationPct
                    : Math.max(maxUtilizationPct, o.maxUtilizationPct);
        }
        logicalProcessors = Math.max(logicalProcessors, o.logicalProcessors);
        perCpuSamples += o.perCpuSamples;
        perCpuIntervalMs += o.perCpuIntervalMs;
        perCpuUtilization += o.perCpuUtilization;
        perCpuUser += o.perCpuUser;
        perCpuPrivileged += o.perCpuPrivileged;
        perCpuDpc += o.perCpuDpc;
        perCpuInterrupt += o.perCpuInterrupt;
        perCpuIowait += o.perCpuIowait;
        perCpuInterruptsPerS += o.perCpuInterruptsPerS;
        perCpuDpcsPerS += o.perCpuDpcsPerS;
        if (!Double.isNaN(o.maxCpuUtilizationPct)
                && (Double.isNaN(maxCpuUtilizationPct) || o.maxCpuUtilizationPct > maxCpuUtilizationPct)) {
            maxCpuUtilizationPct = o.maxCpuUtilizationPct;
            hottestCpu = o.hottestCpu;
        }
        maxIntervalMs = Math.max(maxIntervalMs, o.maxIntervalMs);
        return this;
    }
}
