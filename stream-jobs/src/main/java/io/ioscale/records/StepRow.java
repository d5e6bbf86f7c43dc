package io.ioscale.records;

import java.util.ArrayList;
import java.util.List;

/**
 * One row of {@code scaling_curves}: one load step of a run over its steady state (ramp-up and tail excluded, as
 * chosen by {@link io.ioscale.analytics.SteadyState}), compared with the previous step and with linear scaling
 * from the first step ({@link io.ioscale.analytics.ScalingCurve}), with the Little's-law check and the saturation
 * verdict of {@link io.ioscale.analytics.SaturationDetector}.
 *
 * <p>Latency figures come from the merge of the fleet's per-second histograms over the steady state (every I/O
 * of the step's steady state, as one histogram); p99.999 is flagged too-few unless N &gt;= 10^6.
 * Version = samples in the whole step (ramp-up included), so a step re-evaluated with late data replaces its row.
 */
public class StepRow implements ResultRow {
    public static final String TABLE = "scaling_curves";
    /** {@link #throughputBasis}: the step's I/O samples. */
    public static final String IO_BASIS = "IO";
    /** {@link #throughputBasis}: a step without I/O samples (a network test), measured by its ports' payload. */
    public static final String PORT_BASIS = "PORT";

    public String runId = "";
    public String scenario = "";
    public int stepIndex;
    public String stepLabel = "";
    public String loadAxis = "";
    public double load;
    public int vmCount;
    public int targetsPerVm;
    public int workersPerTarget;
    public int outstandingIosPerTarget;
    public int blockSizeBytes;
    public double readPct = Double.NaN;
    public double randomPct = Double.NaN;
    public long stepStartMs;
    public long stepEndMs;
    public long steadyStartMs;
    public long steadyEndMs;
    public int steadySeconds;
    public String steadyReason = "";
    public double steadyCv = Double.NaN;
    public boolean steadyUsable;
    public String steadyDetail = "";
    public long ops;
    public long bytes;
    public double iops;
    public double mbPerS;
    /** What ops, bytes, iops and mb_per_s count: {@link #IO_BASIS} or {@link #PORT_BASIS}. */
    public String throughputBasis = IO_BASIS;
    public double outstandingIos = Double.NaN;
    public long latencyCount;
    public long latencySumNs;
    public double latencyMeanNs = Double.NaN;
    public long latencyMaxNs;
    public int[] latencyBucketIndex = new int[0];
    public long[] latencyBucketCount = new long[0];
    public LatencyQuantiles quantiles = new LatencyQuantiles();
    public List<CpuLoad> cpus = new ArrayList<>();
    public double cpuUtilizationPct = Double.NaN;
    public double cpuMaxUtilizationPct = Double.NaN;
    public String cpuHottestHost = "";
    public double interruptsPerS = Double.NaN;
    public List<PortUse> ports = new ArrayList<>();
    public double portMaxUtilizationPct = Double.NaN;
    public String portHottest = "";
    public double loadIncreasePct = Double.NaN;
    public double throughputGainPct = Double.NaN;
    public double marginalGainRatio = Double.NaN;
    public double scalingEfficiencyPct = Double.NaN;
    public double latencyGrowthPct = Double.NaN;
    public double littlesExpectedIos = Double.NaN;
    public double littlesMeasuredIos = Double.NaN;
    public double littlesErrorPct = Double.NaN;
    public boolean littlesChecked;
    public boolean littlesConsistent;
    /** What littles_measured_ios is: CONFIGURED (the load's outstanding I/Os) or REPORTED (the samples'). */
    public String littlesBasis = "";
    public String saturationStatus = "";
    public String saturationBottleneck = "";
    public String saturationEvidence = "";
    /** Samples in the whole step (all its seconds): the version. */
    public long stepSamples;
    public long emittedAtMs;

    public StepRow() {}

    /**
     * The row's samples; a row of the I/O samples outranks any of the ports' payload (a step judged from its
     * ports before the run's first fleet second arrived is replaced once it does, whatever the counts).
     */
    public long version() {
        return PORT_BASIS.equals(throughputBasis) ? stepSamples : IO_VERSION_BASE + stepSamples;
    }

    /** Above any count of samples one step can have. */
    static final long IO_VERSION_BASE = 1L << 40;

    @Override
    public String table() {
        return TABLE;
    }

    @Override
    public void write(RowFormat out) {
        String[] cpuHosts = new String[cpus.size()];
        double[] cpuPct = new double[cpus.size()];
        for (int i = 0; i < cpuHosts.length; i++) {
            cpuHosts[i] = cpus.get(i).host;
            cpuPct[i] = cpus.get(i).utilizationPct;
        }
        String[] portNames = new String[ports.size()];
        double[] portPct = new double[ports.size()];
        for (int i = 0; i < portNames.length; i++) {
            portNames[i] = ports.get(i).name();
            portPct[i] = ports.get(i).utilizationPct();
        }
        out.beginRow()
                .lowCardinality("run_id", runId)
                .lowCardinality("scenario", scenario)
                .int32("step_index", stepIndex)
                .string("step_label", stepLabel)
                .lowCardinality("load_axis", loadAxis)
                .float64("load", load)
                .int32("vm_count", vmCount)
                .int32("targets_per_vm", targetsPerVm)
                .int32("workers_per_target", workersPerTarget)
                .int32("outstanding_ios_per_target", outstandingIosPerTarget)
                .int32("block_size_bytes", blockSizeBytes)
                .nullableFloat64("read_pct", readPct)
                .nullableFloat64("random_pct", randomPct)
                .dateTime64("step_start", stepStartMs)
                .dateTime64("step_end", stepEndMs)
                .dateTime64("steady_start", steadyStartMs)
                .dateTime64("steady_end", steadyEndMs)
                .uint32("steady_seconds", steadySeconds)
                .lowCardinality("steady_reason", steadyReason)
                .bool("steady_usable", steadyUsable)
                .nullableFloat64("steady_cv", steadyCv)
                .string("steady_detail", steadyDetail)
                .uint64("ops", ops)
                .uint64("bytes", bytes)
                .float64("iops", iops)
                .float64("mb_per_s", mbPerS)
                .lowCardinality("throughput_basis", throughputBasis)
                .nullableFloat64("outstanding_ios", outstandingIos)
                .uint64("latency_count", latencyCount)
                .uint64("latency_sum_ns", latencySumNs)
                .nullableFloat64("latency_mean_ns", latencyMeanNs)
                .uint64("latency_max_ns", latencyMaxNs)
                .arrayUInt16("latency_bucket_index", latencyBucketIndex)
                .arrayUInt64("latency_bucket_count", latencyBucketCount);
        quantiles.write(out);
        out.nullableFloat64("cpu_utilization_pct", cpuUtilizationPct)
                .nullableFloat64("cpu_max_utilization_pct", cpuMaxUtilizationPct)
                .lowCardinality("cpu_hottest_host", cpuHottestHost)
                .nullableFloat64("interrupts_per_s", interruptsPerS)
                .arrayString("cpu_hosts", cpuHosts)
                .arrayNullableFloat64("cpu_host_utilization_pct", cpuPct)
                .nullableFloat64("port_max_utilization_pct", portMaxUtilizationPct)
                .string("port_hottest", portHottest)
                .arrayString("port_names", portNames)
                .arrayNullableFloat64("port_utilization_pct", portPct)
                .nullableFloat64("load_increase_pct", loadIncreasePct)
                .nullableFloat64("throughput_gain_pct", throughputGainPct)
                .nullableFloat64("marginal_gain_ratio", marginalGainRatio)
                .nullableFloat64("scaling_efficiency_pct", scalingEfficiencyPct)
                .nullableFloat64("latency_growth_pct", latencyGrowthPct)
                .nullableFloat64("littles_expected_ios", littlesExpectedIos)
                .nullableFloat64("littles_measured_ios", littlesMeasuredIos)
                .nullableFloat64("littles_error_pct", littlesErrorPct)
                .bool("littles_checked", littlesChecked)
                .bool("littles_consistent", littlesConsistent)
                .lowCardinality("littles_basis", littlesBasis)
                .lowCardinality("saturation_status", saturationStatus)
                .lowCardinality("saturation_bottleneck", saturationBottleneck)
                .string("saturation_evidence", saturationEvidence)
                .uint64("step_samples", stepSamples)
                .uint64("version", version())
                .dateTime64("emitted_at", emittedAtMs)
                .endRow();
    }

    @Override
    public String toString() {
        return "scaling_curves(" + runId + "/" + stepIndex + ", load=" + load + ", iops=" + iops + ", steady="
                + steadySeconds + "s " + steadyReason + ", " + saturationStatus + ")";
    }

    /** CPU of one host over the steady state. */
    public static class CpuLoad {
        public String host = "";
        public double utilizationPct;
        public int logicalProcessors;
        public double interruptsPerS = Double.NaN;

        public CpuLoad() {}

        public CpuLoad(String host, double utilizationPct, int logicalProcessors, double interruptsPerS) {
            this.host = host;
            this.utilizationPct = utilizationPct;
            this.logicalProcessors = logicalProcessors;
            this.interruptsPerS = interruptsPerS;
        }
    }

    /** One port direction over the steady state. */
    public static class PortUse {
        public String host = "";
        public String portId = "";
        /** RX or TX. */
        public String direction = "RX";
        public double bytesPerS;
        public double capacityBytesPerS;

        public PortUse() {}

        public PortUse(String host, String portId, String direction, double bytesPerS, double capacityBytesPerS) {
            this.host = host;
            this.portId = portId;
            this.direction = direction;
            this.bytesPerS = bytesPerS;
            this.capacityBytesPerS = capacityBytesPerS;
        }

        public double utilizationPct() {
            return bytesPerS / capacityBytesPerS * 100;
        }

        public String name() {
            return host + "/" + portId + " " + direction;
        }
    }
}
