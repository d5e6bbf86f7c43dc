package io.ioscale.analytics;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.QuantileResult;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * What one load step did over its steady state: the input row of {@link ScalingCurve} and
 * {@link SaturationDetector}. Fleet-wide figures (sums over VMs and targets); the latency figures come from the
 * step's merged {@link LatencyHistogram} (never averages of per-VM percentiles).
 *
 * <p>Build one with {@link #builder(int, double)}; {@link Builder#latency(LatencyHistogram)} fills the mean, p99
 * and p99.999 (each with its N and too-few flag) from the histogram.
 *
 * <h2>Worked example (seed 000, 8 KB, 4 workers)</h2>
 * <pre>
 *   StepSummary.builder(3, 4).label("4 workers")
 *       .iops(128_772).mbPerS(1054.9).meanLatencyNs(931_900).outstandingIos(120)
 *       .cpu("pe1900", 45, 4)
 *       .port("pe1900", "QLE2560-0", Direction.RX, 791.2e6, 800e6)   // 98.9 % of the read channel
 *       .port("pe1900", "QLE2560-0", Direction.TX, 263.7e6, 800e6)
 *       .build();
 * </pre>
 *
 * @param stepIndex      0-based step of the run (RunEvent step_index)
 * @param label          human label ("4 VMs, QD 32"); may be empty
 * @param load           the swept load value, x of the scaling curve (VM count, workers, queue depth); &gt; 0
 * @param iops           I/Os per second (reads + writes), steady-state mean
 * @param mbPerS         payload MB/s (10^6 bytes), steady-state mean
 * @param meanLatencyNs  mean latency, ns: the merged histogram's sum_ns / count; NaN when unknown
 * @param p99            p99 of the merged histogram with its N; null when no histogram
 * @param p99999         p99.999 of the merged histogram with its N (needs 10^6 samples); null when no histogram
 * @param cpus           CPU load per host (may be empty)
 * @param interruptsPerS hardware interrupts per second over the fleet's hosts; NaN when unknown
 * @param ports          port utilization per port and direction (may be empty)
 * @param outstandingIos mean I/Os in flight reported by the generators; NaN when unknown
 */
public record StepSummary(int stepIndex, String label, double load, double iops, double mbPerS, double meanLatencyNs,
                          QuantileResult p99, QuantileResult p99999, List<HostCpu> cpus, double interruptsPerS,
                          List<PortLoad> ports, double outstandingIos) implements Serializable {

    public static final double P99 = 0.99;
    public static final double P99999 = 0.99999;

    public StepSummary {
        String where = "step " + stepIndex + ": ";
        label = label == null ? "" : label;
        if (!(load > 0) || Double.isInfinite(load)) {
            throw new IllegalArgumentException(where + "load must be a finite number > 0, got " + load);
        }
        requireNonNegative(where, "iops", iops);
        requireNonNegative(where, "mb_per_s", mbPerS);
        if (meanLatencyNs < 0 || Double.isInfinite(meanLatencyNs)) {
            throw new IllegalArgumentException(where + "mean_latency_ns must be >= 0 or NaN, got " + meanLatencyNs);
        }
        if (interruptsPerS < 0 || Double.isInfinite(interruptsPerS)) {
            throw new IllegalArgumentException(where + "interrupts_per_s must be >= 0 or NaN, got " + interruptsPerS);
        }
        if (outstandingIos < 0 || Double.isInfinite(outstandingIos)) {
            throw new IllegalArgumentException(where + "outstanding_ios must be >= 0 or NaN, got " + outstandingIos);
        }
        cpus = List.copyOf(cpus == null ? List.of() : cpus);
        ports = List.copyOf(ports == null ? List.of() : ports);
    }

    private static void requireNonNegative(String where, String name, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(where + name + " must be a finite number >= 0, got " + v);
        }
    }

    /** The port direction with the highest utilization, if any port is known. */
    public Optional<PortLoad> hottestPort() {
        return ports.stream().max(Comparator.comparingDouble(PortLoad::utilizationPct));
    }

    /** The host with the highest CPU utilization, if any is known. */
    public Optional<HostCpu> hottestCpu() {
        return cpus.stream().max(Comparator.comparingDouble(HostCpu::utilizationPct));
    }

    public static Builder builder(int stepIndex, double load) {
        return new Builder(stepIndex, load);
    }

    /** Mutable builder; unknown figures default to NaN (latency, interrupts, outstanding) or empty lists. */
    public static final class Builder {
        private final int stepIndex;
        private final double load;
        private String label = "";
        private double iops;
        private double mbPerS;
        private double meanLatencyNs = Double.NaN;
        private QuantileResult p99;
        private QuantileResult p99999;
        private final List<HostCpu> cpus = new ArrayList<>();
        private double interruptsPerS = Double.NaN;
        private final List<PortLoad> ports = new ArrayList<>();
        private double outstandingIos = Double.NaN;

        private Builder(int stepIndex, double load) {
            this.stepIndex = stepIndex;
            this.load = load;
        }

        public Builder label(String label) {
            this.label = label;
            return this;
        }

        public Builder iops(double iops) {
            this.iops = iops;
            return this;
        }

        public Builder mbPerS(double mbPerS) {
            this.mbPerS = mbPerS;
            return this;
        }

        public Builder meanLatencyNs(double meanLatencyNs) {
            this.meanLatencyNs = meanLatencyNs;
            return this;
        }

        /**
         * Mean latency (sum_ns / count, exact), p99 and p99.999 from the step's merged histogram. An empty
         * histogram leaves the mean NaN and gives quantiles with n = 0, flagged too-few.
         */
        public Builder latency(LatencyHistogram merged) {
            this.meanLatencyNs = merged.count() == 0 ? Double.NaN : (double) merged.sumNs() / merged.count();
            this.p99 = merged.quantile(P99);
            this.p99999 = merged.quantile(P99999);
            return this;
        }

        public Builder cpu(String host, double utilizationPct, int logicalProcessors) {
            cpus.add(new HostCpu(host, utilizationPct, logicalProcessors));
            return this;
        }

        public Builder interruptsPerS(double interruptsPerS) {
            this.interruptsPerS = interruptsPerS;
            return this;
        }

        public Builder port(String host, String portId, Direction direction, double bytesPerS,
                            double capacityBytesPerS) {
            ports.add(new PortLoad(host, portId, direction, bytesPerS, capacityBytesPerS));
            return this;
        }

        public Builder port(PortLoad port) {
            ports.add(port);
            return this;
        }

        public Builder outstandingIos(double outstandingIos) {
            this.outstandingIos = outstandingIos;
            return this;
        }

        public StepSummary build() {
            return new StepSummary(stepIndex, label, load, iops, mbPerS, meanLatencyNs, p99, p99999, cpus,
                    interruptsPerS, ports, outstandingIos);
        }
    }
}
