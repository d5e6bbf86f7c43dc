package io.ioscale.steps;

import io.ioscale.analytics.Direction;
import io.ioscale.analytics.FleetSecond;
import io.ioscale.analytics.PortLoad;
import io.ioscale.analytics.SaturationDetector;
import io.ioscale.analytics.SaturationVerdict;
import io.ioscale.analytics.ScalingCurve;
import io.ioscale.analytics.ScalingPoint;
import io.ioscale.analytics.SloResult;
import io.ioscale.analytics.SteadyState;
import io.ioscale.analytics.SteadyStateConfig;
import io.ioscale.analytics.SteadyStateWindow;
import io.ioscale.analytics.StepSummary;
import io.ioscale.analytics.ThroughputMetric;
import io.ioscale.analytics.UslFit;
import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.QuantileResult;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.records.CpuSample;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.LatencyQuantiles;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.records.StepRow;
import io.ioscale.records.UslFitRow;
import io.ioscale.rollups.BucketCounts;
import io.ioscale.sources.LinkCapacityRule;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one step's seconds say, without state or clocks ({@link StepAnalyzer} decides when): the steady window,
 * the step's row over it (I/O, latency, CPU, ports), its point on the scaling curve with the saturation verdict,
 * its SLO results, and the USL fit over the completed steps.
 *
 * <h2>Samples longer than a second</h2>
 * Each {@link StepSecond} holds the samples that started in it, and its rates hold over the time they cover.
 * <ul>
 *   <li>Per-second samples (spans under {@link #COARSE_SPAN_MS}: collectors' jitter) are counted per second:
 *       IOPS = the window's I/Os / its seconds with I/O.</li>
 *   <li>Whole-step samples, each covering at least {@link #WHOLE_STEP_SHARE} of the time the step's samples
 *       cover (Iometer, DISKSPD and VMFleet results, fio JSON): the window is that time, reason WHOLE_STEP (the
 *       tool's measured window already leaves its ramp-up out), with every sample in it.</li>
 *   <li>Other multi-second samples (a 5 s log interval): the steady window is found on their rates spread over
 *       the seconds they cover; counts and the histogram are those of the samples centred in the window.</li>
 * </ul>
 * Rates of multi-second samples are the I/Os the samples did inside the window (pro rata) over the time they
 * cover in it: for whole-step samples, their I/Os over the time from the first start to the last end, as the
 * raw curve ({@code scaling_curve_raw}) takes them over the step's measured window. VMs that start a few
 * seconds apart therefore count a little under the sum of their own rates.
 *
 * <h2>Network steps</h2>
 * A step of seconds built from its ports ({@link StepSecond#ofPorts}: a run without I/O samples) has the same
 * row with the payload for bytes and MB/s (throughput_basis PORT), no latency; its steady state, scaling curve,
 * verdict and USL fit judge MB/s, whatever metric the I/O steps are judged on.
 */
final class StepEvaluation implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A span from which a sample is more than a per-second one. */
    static final long COARSE_SPAN_MS = 2 * StepAnalyzer.SECOND_MS;
    /** How much of the step's covered time every sample must span for the step to be one of whole-step samples. */
    static final double WHOLE_STEP_SHARE = 0.9;

    /** Everything known about one step over its steady window. */
    record Result(StepRow row, SaturationVerdict verdict, List<SloResult> slo) {}

    private final StepAnalysisConfig settings;
    private final SaturationDetector detector;
    /** For steps measured by their ports' payload (network tests), which have no I/Os: judged on MB/s. */
    private final SaturationDetector portDetector;

    StepEvaluation(StepAnalysisConfig settings) {
        this.settings = settings;
        this.detector = new SaturationDetector(settings.saturation());
        this.portDetector = new SaturationDetector(settings.saturation().withMetric(ThroughputMetric.MB_PER_S));
    }

    /** Whether the step's figures are its ports' payload: it has no I/O samples ({@link StepSecond#ofPorts}). */
    static boolean portBasis(List<StepSecond> series) {
        return !series.isEmpty() && series.get(0).portBasis;
    }

    /** The throughput a step of {@code series} is judged on: the configured metric, MB/s for a network step. */
    private ThroughputMetric metric(boolean portBasis) {
        return portBasis ? ThroughputMetric.MB_PER_S : settings.saturation().metric();
    }

    // ------------------------------------------------------------------------------------------- window

    /** The steady window of a step whose seconds are {@code series} (ascending), within [fromMs, toMs). */
    static SteadyStateWindow window(List<StepSecond> series, long fromMs, long toMs, SteadyStateConfig config) {
        // A network step has no I/Os: its steady state is judged on the payload (I/O steps keep IOPS).
        ThroughputMetric judged = portBasis(series) ? ThroughputMetric.MB_PER_S : ThroughputMetric.IOPS;
        if (!coarse(series)) {
            return SteadyState.choose(fleetSeconds(series), fromMs, toMs, config, judged);
        }
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        long shortest = Long.MAX_VALUE;
        for (StepSecond s : series) {
            start = Math.min(start, s.tsMs);
            end = Math.max(end, s.endMs());
            shortest = Math.min(shortest, s.spanMs);
        }
        if (shortest >= WHOLE_STEP_SHARE * (end - start)) {
            return SteadyStateWindow.wholeStep(start, end, String.format(Locale.ROOT,
                    "%d sample start(s), each spanning at least %.1f s of the %.1f s they cover: the tool's measured "
                            + "window is the steady state", series.size(), shortest / 1000.0, (end - start) / 1000.0));
        }
        SteadyStateWindow w = SteadyState.choose(spread(series, start, end), fromMs, toMs, config, judged);
        return new SteadyStateWindow(w.fromIndex(), w.toIndex(), w.startMs(), w.endMs(), w.reason(), w.cv(),
                "samples of up to " + maxSpanMs(series) / 1000.0 + " s, spread over the seconds they cover; "
                        + w.detail());
    }

    private static boolean coarse(List<StepSecond> series) {
        return maxSpanMs(series) >= COARSE_SPAN_MS;
    }

    private static long maxSpanMs(List<StepSecond> series) {
        long max = 0;
        for (StepSecond s : series) {
            max = Math.max(max, s.spanMs);
        }
        return max;
    }

    static List<FleetSecond> fleetSeconds(List<StepSecond> series) {
        List<FleetSecond> out = new ArrayList<>(series.size());
        for (StepSecond s : series) {
            out.add(new FleetSecond(s.tsMs, s.ops, s.bytes / 1e6, s.meanLatencyNs()));
        }
        return out;
    }

    /** Per second of [start, end): the rates of the samples covering it, each for the part of the second it covers. */
    private static List<FleetSecond> spread(List<StepSecond> series, long start, long end) {
        long first = Math.floorDiv(start, StepAnalyzer.SECOND_MS) * StepAnalyzer.SECOND_MS;
        List<FleetSecond> out = new ArrayList<>();
        for (long t = first; t < end; t += StepAnalyzer.SECOND_MS) {
            double ios = 0;
            double mb = 0;
            double latencyIos = 0;
            double latencyNs = 0;
            for (StepSecond s : series) {
                long overlap = s.overlapMs(t, t + StepAnalyzer.SECOND_MS);
                if (overlap == 0) {
                    continue;
                }
                double share = overlap / 1000.0;
                ios += s.iops * share;
                mb += s.mbPerS * share;
                double mean = s.meanLatencyNs();
                if (!Double.isNaN(mean)) {
                    latencyIos += s.iops * share;
                    latencyNs += s.iops * share * mean;
                }
            }
            out.add(new FleetSecond(t, ios, mb, latencyIos > 0 ? latencyNs / latencyIos : Double.NaN));
        }
        return out;
    }

    /** Whether second {@code s} counts toward the window (its I/Os, latency and histogram). */
    private static boolean inWindow(StepSecond s, SteadyStateWindow w, boolean coarse) {
        if (w.reason() == SteadyStateWindow.Reason.WHOLE_STEP) {
            return true;
        }
        long at = coarse ? s.tsMs + s.spanMs / 2 : s.tsMs;
        return at >= w.startMs() && at < w.endMs();
    }

    // ------------------------------------------------------------------------------------------- evaluation

    /**
     * The step over {@code window}: {@code series} are its seconds from {@code stepStartMs} on, {@code before} the
     * completed rows of the steps before it (any order).
     */
    Result evaluate(String runId, String scenario, StepAnalyzer.StepInfo step, List<StepSecond> series,
                    SteadyStateWindow window, long stepStartMs, long stepEndMs, Collection<StepRow> before) {
        StepRow row = new StepRow();
        row.runId = runId;
        row.scenario = scenario;
        row.stepIndex = step.stepIndex;
        row.stepLabel = step.label;
        boolean ports = portBasis(series);
        row.throughputBasis = ports ? StepRow.PORT_BASIS : StepRow.IO_BASIS;
        row.loadAxis = settings.loadAxis().key();
        row.load = settings.loadAxis().of(step.load, step.stepIndex);
        if (step.load != null) {
            row.vmCount = step.load.vmCount;
            row.targetsPerVm = step.load.targetsPerVm;
            row.workersPerTarget = step.load.workersPerTarget;
            row.outstandingIosPerTarget = step.load.outstandingIosPerTarget;
            row.blockSizeBytes = step.load.blockSizeBytes;
            row.readPct = step.load.readPct;
            row.randomPct = step.load.randomPct;
        }
        row.stepStartMs = stepStartMs;
        row.stepEndMs = stepEndMs;
        row.steadyStartMs = window.startMs();
        row.steadyEndMs = window.endMs();
        row.steadySeconds = window.seconds();
        row.steadyReason = window.reason().name();
        row.steadyUsable = window.usable();
        row.steadyCv = window.cv();
        row.steadyDetail = window.detail();
        for (StepSecond s : series) {
            row.stepSamples += s.samples;
        }

        boolean coarse = coarse(series);
        List<StepSecond> steady = new ArrayList<>();
        for (StepSecond s : series) {
            if (inWindow(s, window, coarse)) {
                steady.add(s);
            }
        }
        // Counts and the histogram over the window's samples.
        BucketCounts buckets = new BucketCounts();
        long histogramSumNs = 0;
        long histogramMinNs = Long.MAX_VALUE;
        long histogramMaxNs = 0;
        for (StepSecond s : steady) {
            row.ops += s.ops;
            row.bytes += s.bytes;
            row.latencyCount += s.latencyCount;
            row.latencySumNs += s.latencySumNs;
            row.latencyMaxNs = Math.max(row.latencyMaxNs, s.latencyMaxNs);
            for (FleetRollupRow r : s.rows) {
                if (r.stats.latencyBuckets.length > 0) {
                    buckets.add(r.stats.latencyBuckets);
                    histogramSumNs += r.stats.latencySumNs;
                    histogramMinNs = Math.min(histogramMinNs, r.stats.latencyMinNs);
                    histogramMaxNs = Math.max(histogramMaxNs, r.stats.latencyMaxNs);
                }
            }
        }
        rates(series, steady, window, coarse, row);
        row.latencyMeanNs = row.latencyCount > 0 ? (double) row.latencySumNs / row.latencyCount : Double.NaN;
        LatencyHistogram merged = buckets.toHistogram(histogramSumNs, histogramMinNs, histogramMaxNs);
        SparseBuckets sparse = merged.toSparse();
        row.latencyBucketIndex = sparse.indexes();
        row.latencyBucketCount = sparse.counts();
        row.quantiles = LatencyQuantiles.of(merged);

        // CPU and ports over the same time.
        cpuOver(steady, window.startMs(), window.endMs(), row);
        portsOver(steady, window.startMs(), window.endMs(), row);

        // Scaling curve: the completed steps before this one, then this one.
        List<StepRow> earlier = new ArrayList<>();
        for (StepRow r : before) {
            if (r.stepIndex < step.stepIndex) {
                earlier.add(r);
            }
        }
        earlier.sort(Comparator.comparingInt(r -> r.stepIndex));
        List<StepSummary> summaries = new ArrayList<>();
        for (StepRow r : earlier) {
            summaries.add(summaryOf(r));
        }
        summaries.add(summaryOf(row));
        SaturationDetector judge = ports ? portDetector : detector;
        ScalingCurve curve = judge.curve(summaries);
        ScalingPoint point = curve.latest();
        SaturationVerdict verdict = judge.assess(point);
        row.loadIncreasePct = point.loadIncreasePct();
        row.throughputGainPct = point.throughputGainPct();
        row.marginalGainRatio = point.marginalGainRatio();
        row.scalingEfficiencyPct = point.scalingEfficiency() * 100;
        row.latencyGrowthPct = point.latencyGrowthPct();
        row.littlesExpectedIos = point.littlesLaw().expected();
        row.littlesMeasuredIos = point.littlesLaw().measured();
        row.littlesErrorPct = point.littlesLaw().relativeError() * 100;
        row.littlesChecked = point.littlesLaw().checked();
        row.littlesConsistent = point.littlesLaw().consistent();
        row.littlesBasis = !row.littlesChecked ? "" : Double.isNaN(configuredOutstanding(row)) ? "REPORTED"
                : "CONFIGURED";
        row.saturationStatus = verdict.status().name();
        row.saturationBottleneck = verdict.bottleneck().name();
        row.saturationEvidence = verdict.evidence();
        row.emittedAtMs = System.currentTimeMillis();
        List<SloResult> slo = settings.slo() == null ? List.of() : settings.slo().evaluate(merged);
        return new Result(row, verdict, slo);
    }

    /** IOPS, MB/s and I/Os in flight over the window (see the class comment). */
    private static void rates(List<StepSecond> series, List<StepSecond> steady, SteadyStateWindow window,
                              boolean coarse, StepRow row) {
        double ios = 0;
        double mb = 0;
        double inFlight = 0;
        double seconds;
        if (!coarse) {
            for (StepSecond s : steady) {
                ios += s.ops;
                mb += s.bytes / 1e6;
                inFlight += s.outstandingIos;
            }
            seconds = steady.size();
        } else {
            List<long[]> covered = new ArrayList<>();
            for (StepSecond s : series) {
                long overlap = s.overlapMs(window.startMs(), window.endMs());
                if (overlap > 0) {
                    ios += s.iops * overlap / 1000.0;
                    mb += s.mbPerS * overlap / 1000.0;
                    inFlight += s.outstandingIos * overlap / 1000.0;
                    covered.add(new long[] {Math.max(s.tsMs, window.startMs()), Math.min(s.endMs(), window.endMs())});
                }
            }
            seconds = unionMs(covered) / 1000.0;
        }
        row.iops = seconds == 0 ? 0 : ios / seconds;
        row.mbPerS = seconds == 0 ? 0 : mb / seconds;
        row.outstandingIos = seconds == 0 || inFlight == 0 ? Double.NaN : inFlight / seconds; // 0 = not reported
    }

    /** Length of the union of [from, to) intervals, ms. */
    private static long unionMs(List<long[]> intervals) {
        intervals.sort(Comparator.comparingLong(i -> i[0]));
        long total = 0;
        long curFrom = Long.MIN_VALUE;
        long curTo = Long.MIN_VALUE;
        for (long[] i : intervals) {
            if (i[0] > curTo) {
                total += curTo - curFrom;
                curFrom = i[0];
                curTo = i[1];
            } else {
                curTo = Math.max(curTo, i[1]);
            }
        }
        return total + (curTo - curFrom);
    }

    /**
     * CPU per host over [from, to): one host-level scope per host (HYPERVISOR over HOST over ROOT_PARTITION: the
     * hypervisor's logical processors carry root and guest work alike), interval-weighted mean utilization and
     * interrupt rate; the step's figures are the mean over hosts and the hottest host, interrupts summed.
     */
    static void cpuOver(List<StepSecond> steady, long from, long to, StepRow row) {
        Map<String, double[]> byHostScope = new TreeMap<>(); // "host\0scope" -> [sum util x w, sum w, lps, intr x w]
        for (StepSecond s : steady) {
            for (CpuSample c : s.cpu) {
                if (c.tsMs < from || c.tsMs >= to) {
                    continue;
                }
                double w = Math.max(c.intervalMs, 1);
                double[] a = byHostScope.computeIfAbsent(c.host + "\0" + c.scope, k -> new double[4]);
                a[0] += c.utilizationPct * w;
                a[1] += w;
                a[2] = Math.max(a[2], c.logicalProcessors);
                a[3] += c.interruptsPerS * w;
            }
        }
        Map<String, StepRow.CpuLoad> byHost = new LinkedHashMap<>();
        for (String scope : StepAnalyzer.HOST_SCOPES) {
            for (Map.Entry<String, double[]> e : byHostScope.entrySet()) {
                String[] hs = e.getKey().split("\0", 2);
                if (!hs[1].equals(scope) || byHost.containsKey(hs[0])) {
                    continue;
                }
                double[] a = e.getValue();
                double pct = Math.min(100.0, Math.max(0.0, a[0] / a[1]));
                byHost.put(hs[0], new StepRow.CpuLoad(hs[0], pct, (int) a[2], a[3] / a[1]));
            }
        }
        row.cpus = new ArrayList<>(byHost.values());
        if (row.cpus.isEmpty()) {
            return;
        }
        double sum = 0;
        double interrupts = 0;
        StepRow.CpuLoad hottest = null;
        for (StepRow.CpuLoad c : row.cpus) {
            sum += c.utilizationPct;
            interrupts += c.interruptsPerS;
            if (hottest == null || c.utilizationPct > hottest.utilizationPct) {
                hottest = c;
            }
        }
        row.cpuUtilizationPct = sum / row.cpus.size();
        row.cpuMaxUtilizationPct = hottest.utilizationPct;
        row.cpuHottestHost = hottest.host;
        row.interruptsPerS = interrupts;
    }

    /** Whole ports with a known capacity over [from, to): mean bytes/s per direction (half duplex: rx + tx). */
    static void portsOver(List<StepSecond> steady, long from, long to, StepRow row) {
        Map<String, PortSum> byPort = new TreeMap<>(); // "host\0port"
        for (StepSecond s : steady) {
            for (PortSample p : s.port) {
                if (p.tsMs < from || p.tsMs >= to || p.capacityBytesPerS <= 0) {
                    continue;
                }
                byPort.computeIfAbsent(p.host + "\0" + p.portId, k -> new PortSum()).add(p);
            }
        }
        row.ports = new ArrayList<>();
        for (Map.Entry<String, PortSum> e : byPort.entrySet()) {
            String[] hp = e.getKey().split("\0", 2);
            PortSum a = e.getValue();
            double seconds = a.intervalMs / 1000.0;
            double rx = a.rxBytes / seconds;
            double tx = a.txBytes / seconds;
            row.ports.add(new StepRow.PortUse(hp[0], hp[1], "RX", a.fullDuplex ? rx : rx + tx, a.capacityBytesPerS));
            row.ports.add(new StepRow.PortUse(hp[0], hp[1], "TX", a.fullDuplex ? tx : rx + tx, a.capacityBytesPerS));
        }
        StepRow.PortUse hottest = null;
        for (StepRow.PortUse p : row.ports) {
            if (hottest == null || p.utilizationPct() > hottest.utilizationPct()) {
                hottest = p;
            }
        }
        if (hottest != null) {
            row.portMaxUtilizationPct = hottest.utilizationPct();
            row.portHottest = hottest.name();
        }
    }

    /** One port's bytes over the steady seconds, with the best capacity its samples carry and that link's duplex. */
    private static final class PortSum {
        double rxBytes;
        double txBytes;
        double intervalMs;
        double capacityBytesPerS;
        String capacitySource = LinkCapacityRule.UNKNOWN;
        boolean fullDuplex = true;

        void add(PortSample p) {
            rxBytes += p.rxBytes;
            txBytes += p.txBytes;
            intervalMs += Math.max(p.intervalMs, 1);
            if (LinkCapacityRule.supersedes(p.capacitySource, p.capacityBytesPerS, capacitySource, capacityBytesPerS)) {
                capacityBytesPerS = p.capacityBytesPerS;
                capacitySource = p.capacitySource;
                fullDuplex = p.fullDuplex;
            }
        }
    }

    /**
     * The I/Os in flight the step's load configures (VMs x targets x workers x queue depth), NaN when the load does
     * not say. A closed-loop generator keeps exactly these in flight, so it is what Little's law is checked against:
     * an importer's outstanding_ios may be IOPS x latency itself (Iometer), which always agrees.
     */
    static double configuredOutstanding(StepRow r) {
        if (r.targetsPerVm <= 0 || r.workersPerTarget <= 0 || r.outstandingIosPerTarget <= 0) {
            return Double.NaN;
        }
        return (double) Math.max(r.vmCount, 1) * r.targetsPerVm * r.workersPerTarget * r.outstandingIosPerTarget;
    }

    /** The analytics' view of a step row; its outstanding I/Os are the configured ones where the load says. */
    static StepSummary summaryOf(StepRow r) {
        double configured = configuredOutstanding(r);
        StepSummary.Builder b = StepSummary.builder(r.stepIndex, r.load)
                .label(r.stepLabel)
                .iops(r.iops)
                .mbPerS(r.mbPerS)
                .meanLatencyNs(r.latencyMeanNs)
                .outstandingIos(Double.isNaN(configured) ? r.outstandingIos : configured)
                .interruptsPerS(r.interruptsPerS);
        for (StepRow.CpuLoad c : r.cpus) {
            b.cpu(c.host, c.utilizationPct, c.logicalProcessors);
        }
        for (StepRow.PortUse p : r.ports) {
            b.port(new PortLoad(p.host, p.portId, Direction.valueOf(p.direction), p.bytesPerS, p.capacityBytesPerS));
        }
        StepSummary s = b.build();
        // The builder fills p99/p99.999 from a histogram; the row already holds them with their N.
        return new StepSummary(s.stepIndex(), s.label(), s.load(), s.iops(), s.mbPerS(), s.meanLatencyNs(),
                quantile(r.quantiles, StepSummary.P99), quantile(r.quantiles, StepSummary.P99999), s.cpus(),
                s.interruptsPerS(), s.ports(), s.outstandingIos());
    }

    private static QuantileResult quantile(LatencyQuantiles q, double level) {
        return new QuantileResult(level, q.valueNs(level), q.n, q.tooFew(level), LatencyHistogram.requiredN(level));
    }

    /** The USL fit over the completed rows up to {@code throughStep}. */
    UslFitRow uslFit(String runId, int throughStep, long eventTs, Collection<StepRow> completed) {
        List<StepRow> rows = new ArrayList<>();
        for (StepRow r : completed) {
            if (r.stepIndex <= throughStep) {
                rows.add(r);
            }
        }
        rows.sort(Comparator.comparingInt(r -> r.stepIndex));
        double[] n = new double[rows.size()];
        double[] x = new double[rows.size()];
        long samples = 0;
        ThroughputMetric metric = metric(!rows.isEmpty() && StepRow.PORT_BASIS.equals(rows.get(0).throughputBasis));
        for (int i = 0; i < n.length; i++) {
            StepRow r = rows.get(i);
            n[i] = r.load;
            x[i] = metric == ThroughputMetric.IOPS ? r.iops : r.mbPerS;
            samples += r.stepSamples;
        }
        UslFit fit = UslFit.fit(n, x);
        UslFitRow row = new UslFitRow();
        row.runId = runId;
        row.throughStep = throughStep;
        row.points = fit.points();
        row.metric = metric.column();
        row.loadAxis = settings.loadAxis().key();
        row.fitted = fit.fitted();
        row.reason = fit.reason();
        row.lambda = fit.lambda();
        row.sigma = fit.sigma();
        row.kappa = fit.kappa();
        row.rSquared = fit.rSquared();
        row.peakN = fit.peakN();
        row.peakX = fit.peakX();
        row.maxN = fit.maxN();
        row.peakExtrapolated = fit.peakExtrapolated();
        row.eventTsMs = eventTs;
        row.samples = samples;
        row.emittedAtMs = System.currentTimeMillis();
        return row;
    }
}
