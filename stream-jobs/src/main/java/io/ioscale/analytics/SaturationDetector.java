package io.ioscale.analytics;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides, step by step as each step's steady state becomes known, whether throughput stopped scaling while
 * latency grows (the closed-loop saturation signature: past the knee, added outstanding I/Os only queue), and
 * names the bottleneck with its evidence.
 *
 * <h2>Rule, for step k against step k-1 ({@link ScalingCurve} defines the figures)</h2>
 * <pre>
 *   stalled   = marginalGainRatio &lt; marginal-gain-ratio   OR   scalingEfficiency &lt; min-efficiency
 *   saturated = stalled AND latencyGrowthPct &gt; min-latency-growth-pct
 * </pre>
 * A step without latency (a network test: payload only) that stalls is SATURATED when its hottest port or
 * host CPU is at its limit (attributed as below), else UNDETERMINED.
 * Stalled without latency growth is UNDETERMINED (the load did not add work: a generator limit or a
 * mislabelled step), not saturation. The first step, a step whose load did not increase, and unknown figures
 * are UNDETERMINED. A step that is not stalled is SCALING.
 *
 * <h2>Attribution of a saturated step, first match wins</h2>
 * <ol>
 *   <li>PORT: the hottest port direction is at &gt;= port-utilization-pct (95) of its payload rate.</li>
 *   <li>CPU: the hottest host is at &gt;= cpu-utilization-pct (90) of its logical processors.</li>
 *   <li>DEVICE_KNEE: neither; the evidence gives the latency growth against the throughput growth.</li>
 * </ol>
 *
 * <h2>Worked example (seed 000, 8 KB, the table in {@link ScalingCurve})</h2>
 * Step 2 (+40 % for +100 % load, marginal 0.40, efficiency 0.70) and step 3 (marginal 0.40, efficiency 0.56)
 * scale. Step 4: +5 % for +33 % load, marginal 0.15 &lt; 0.25 and efficiency 0.44 &lt; 0.5: stalled; mean latency
 * +27 % &gt; 10 %: SATURATED. The HBA's receive direction carries 0.75 x 128,772 x 8192 B = 791 MB/s of 800:
 * 98.9 % &gt;= 95 %, so PORT, naming the port, RX and 98.9 %.
 *
 * <p>Stateless and {@link Serializable}: a Flink operator keeps the run's step summaries (ListState) and calls
 * {@link #assessLatest(List)} when a step's summary is complete.
 */
public final class SaturationDetector implements Serializable {
    private static final long serialVersionUID = 1L;

    private final SaturationConfig config;

    public SaturationDetector(SaturationConfig config) {
        this.config = config;
    }

    public SaturationDetector() {
        this(SaturationConfig.defaults());
    }

    public SaturationConfig config() {
        return config;
    }

    /** The scaling curve with this detector's metric and Little's-law tolerance. */
    public ScalingCurve curve(List<StepSummary> steps) {
        return ScalingCurve.of(steps, config.metric(), config.littlesLawTolerance());
    }

    /** The live call: judges the last step of {@code stepsSoFar} (run order) against the ones before it. */
    public SaturationVerdict assessLatest(List<StepSummary> stepsSoFar) {
        if (stepsSoFar.isEmpty()) {
            throw new IllegalArgumentException("no step to assess");
        }
        ScalingCurve curve = curve(stepsSoFar);
        return assess(curve.latest());
    }

    /** One verdict per step, in order. */
    public List<SaturationVerdict> assessAll(List<StepSummary> steps) {
        List<SaturationVerdict> out = new ArrayList<>(steps.size());
        for (ScalingPoint p : curve(steps).points()) {
            out.add(assess(p));
        }
        return out;
    }

    /** The first SATURATED step of a run, if any. */
    public Optional<SaturationVerdict> firstSaturation(List<StepSummary> steps) {
        return assessAll(steps).stream().filter(SaturationVerdict::saturated).findFirst();
    }

    /** Judges one point of a curve (its previous-step figures are already in it). */
    public SaturationVerdict assess(ScalingPoint p) {
        StepSummary s = p.step();
        PortLoad hotPort = s.hottestPort().orElse(null);
        HostCpu hotCpu = s.hottestCpu().orElse(null);
        String what = config.metric() == ThroughputMetric.IOPS ? "IOPS" : "MB/s";
        if (!p.hasPrevious()) {
            return verdict(p, SaturationVerdict.Status.UNDETERMINED, SaturationVerdict.Bottleneck.NONE,
                    "first step: nothing to compare with", hotPort, hotCpu);
        }
        if (!(p.loadIncreasePct() > 0)) {
            return verdict(p, SaturationVerdict.Status.UNDETERMINED, SaturationVerdict.Bottleneck.NONE,
                    f("load did not increase (%+.1f%%): not a scaling step", p.loadIncreasePct()), hotPort, hotCpu);
        }
        if (Double.isNaN(p.throughputGainPct())) {
            return verdict(p, SaturationVerdict.Status.UNDETERMINED, SaturationVerdict.Bottleneck.NONE,
                    "previous step had no throughput", hotPort, hotCpu);
        }
        boolean byMarginal = p.marginalGainRatio() < config.marginalGainRatio();
        boolean byEfficiency = p.scalingEfficiency() < config.minEfficiency();
        String growth = f("%s %+.1f%% for load %+.1f%% (marginal %.2f %s %.2f, efficiency %.2f %s %.2f)", what,
                p.throughputGainPct(), p.loadIncreasePct(),
                p.marginalGainRatio(), byMarginal ? "<" : ">=", config.marginalGainRatio(),
                p.scalingEfficiency(), byEfficiency ? "<" : ">=", config.minEfficiency());
        if (!byMarginal && !byEfficiency) {
            return verdict(p, SaturationVerdict.Status.SCALING, SaturationVerdict.Bottleneck.NONE,
                    "scaling: " + growth, hotPort, hotCpu);
        }
        if (Double.isNaN(p.latencyGrowthPct())) {
            // No latency (a network test measures payload only): a resource at its limit is the evidence instead.
            String stalled = "throughput stalled (" + growth + "), mean latency unknown";
            return atLimit(p, hotPort, hotCpu, stalled).orElseGet(() -> verdict(p,
                    SaturationVerdict.Status.UNDETERMINED, SaturationVerdict.Bottleneck.NONE,
                    stalled + " and no port or CPU at its limit", hotPort, hotCpu));
        }
        String latency = f("mean latency %+.1f%% (%s -> %s)", p.latencyGrowthPct(),
                latencyText(p.step().meanLatencyNs() / (1 + p.latencyGrowthPct() / 100)),
                latencyText(p.step().meanLatencyNs()));
        if (!(p.latencyGrowthPct() > config.minLatencyGrowthPct())) {
            return verdict(p, SaturationVerdict.Status.UNDETERMINED, SaturationVerdict.Bottleneck.NONE,
                    "throughput stalled (" + growth + ") but " + latency + " did not grow by more than "
                            + Ranges.fmt(config.minLatencyGrowthPct()) + "%: the added load added no work",
                    hotPort, hotCpu);
        }
        String signature = "throughput stalled: " + growth + " while " + latency;
        Optional<SaturationVerdict> resource = atLimit(p, hotPort, hotCpu, signature);
        if (resource.isPresent()) {
            return resource.get();
        }
        String ports = hotPort == null ? "no port figures"
                : f("no port >= %s%% (hottest %s %.1f%%)", Ranges.fmt(config.portUtilizationPct()),
                        hotPort.name(), hotPort.utilizationPct());
        String cpus = hotCpu == null ? "no CPU figures"
                : f("no CPU >= %s%% (hottest %s %.1f%%)", Ranges.fmt(config.cpuUtilizationPct()), hotCpu.host(),
                        hotCpu.utilizationPct());
        double ratio = p.throughputGainPct() > 0 ? p.latencyGrowthPct() / p.throughputGainPct() : Double.POSITIVE_INFINITY;
        return verdict(p, SaturationVerdict.Status.SATURATED, SaturationVerdict.Bottleneck.DEVICE_KNEE,
                f("device/latency knee: latency %+.1f%% vs %s %+.1f%% (%sx as fast); %s, %s; ", p.latencyGrowthPct(), what,
                        p.throughputGainPct(), Double.isInfinite(ratio) ? "inf" : f("%.1f", ratio), ports, cpus)
                        + signature,
                hotPort, hotCpu);
    }

    /** SATURATED at the hottest port, else the hottest host's CPU, if it is at its limit; {@code why} follows. */
    private Optional<SaturationVerdict> atLimit(ScalingPoint p, PortLoad port, HostCpu cpu, String why) {
        if (port != null && port.utilizationPct() >= config.portUtilizationPct()) {
            return Optional.of(verdict(p, SaturationVerdict.Status.SATURATED, SaturationVerdict.Bottleneck.PORT,
                    f("port %s at %.1f%% of its %.1f MB/s payload rate (%.1f MB/s, >= %s%%); ", port.name(),
                            port.utilizationPct(), port.capacityBytesPerS() / 1e6, port.bytesPerS() / 1e6,
                            Ranges.fmt(config.portUtilizationPct())) + why, port, cpu));
        }
        if (cpu != null && cpu.utilizationPct() >= config.cpuUtilizationPct()) {
            double interrupts = p.step().interruptsPerS();
            return Optional.of(verdict(p, SaturationVerdict.Status.SATURATED, SaturationVerdict.Bottleneck.CPU,
                    f("host %s CPU at %.1f%%%s (>= %s%%)%s; ", cpu.host(), cpu.utilizationPct(),
                            cpu.logicalProcessors() > 0 ? " of " + cpu.logicalProcessors() + " logical processors"
                                    : "",
                            Ranges.fmt(config.cpuUtilizationPct()),
                            Double.isNaN(interrupts) ? "" : f(", %.0f interrupts/s", interrupts)) + why, port, cpu));
        }
        return Optional.empty();
    }

    private static SaturationVerdict verdict(ScalingPoint p, SaturationVerdict.Status status,
                                             SaturationVerdict.Bottleneck bottleneck, String evidence,
                                             PortLoad port, HostCpu cpu) {
        return new SaturationVerdict(p.stepIndex(), p.load(), status, bottleneck,
                "step " + p.stepIndex() + " (load " + Ranges.fmt(p.load()) + "): " + evidence, p, port, cpu);
    }

    private static String latencyText(double ns) {
        return ns >= 1e6 ? f("%.3f ms", ns / 1e6) : f("%.1f us", ns / 1e3);
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
