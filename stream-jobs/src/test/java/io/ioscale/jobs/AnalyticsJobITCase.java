package io.ioscale.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.config.AnalyticsOptions;
import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.records.AlertRow;
import io.ioscale.records.CpuRollupRow;
import io.ioscale.records.CpuSample;
import io.ioscale.records.DeadLetter;
import io.ioscale.records.DeadLetterRow;
import io.ioscale.records.Decoded;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.IoSample;
import io.ioscale.records.IoStats;
import io.ioscale.records.LatencyQuantiles;
import io.ioscale.records.PortRollupRow;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.records.StepRow;
import io.ioscale.records.UslFitRow;
import io.ioscale.rollups.CountTooLate;
import io.ioscale.sources.SplitDeadLetters;
import io.ioscale.testing.Collected;
import io.ioscale.testing.TestData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole analytics job on a MiniCluster, with injected bounded sources and collecting sinks. Every figure is
 * checked against an oracle computed here from the raw latencies the samples were built from.
 *
 * <p>Determinism: one source split per topic (parallelism 1) and a watermark after every record (punctuated,
 * out-of-orderness 0), so "late" and "too late" depend only on the order of the input lists.
 */
class AnalyticsJobITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER = Collected.miniCluster();

    private static final String RUN = "run-it";
    private static final List<String[]> SOURCES = List.of(
            new String[] {"h1", "vm1", "sdb", "READ"}, new String[] {"h1", "vm1", "sdb", "WRITE"},
            new String[] {"h1", "vm2", "sdb", "READ"}, new String[] {"h1", "vm2", "sdb", "WRITE"},
            new String[] {"h2", "vm3", "sdc", "READ"}, new String[] {"h2", "vm3", "sdc", "WRITE"});
    private static final Duration LATENESS = Duration.ofSeconds(5);
    private static final double[] RX_SHARE = {0.45, 0.80, 0.97};

    @BeforeEach
    void clear() {
        Collected.clear();
    }

    // ------------------------------------------------------------------------------------------- rollups

    /** One input sample with the raw latencies it was built from. */
    private record Raw(IoSample sample, long[] latencies) {}

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void rollupsMatchTheExactOracleIncludingLateMergesAndTooLateCounts() throws Exception {
        List<Raw> raws = new ArrayList<>();
        List<Decoded<IoSample>> input = new ArrayList<>();
        int seed = 0;
        for (long sec = 0; sec < 70; sec++) {
            for (String[] src : SOURCES) {
                long[] lat = TestData.latencies(seed++, 150 + (int) (sec % 3) * 40, 200_000 + 50_000L * (seed % 4));
                IoSample s = TestData.io(RUN, 0, sec * 1000, src[0], src[1], src[2], src[3], lat, 4096, 4.0);
                raws.add(new Raw(s, lat));
                input.add(Decoded.of(s));
            }
            if (sec == 4) {
                // Late, within the allowed lateness (watermark 3999 > window [1000, 2000) end): merged, re-fired.
                long[] lat = TestData.latencies(10_000, 77, 900_000);
                IoSample late = TestData.io(RUN, 0, 1_500, "h1", "vm1", "sdb", "READ", lat, 4096, 2.0);
                raws.add(new Raw(late, lat));
                input.add(Decoded.of(late));
            }
            if (sec == 9) {
                // Too late for its 1 s window (2999 + 5000 <= watermark 8999), in time for its 10 s and 1 min ones.
                long[] lat = TestData.latencies(10_001, 33, 300_000);
                IoSample tooLate = TestData.io(RUN, 0, 2_500, "h2", "vm3", "sdc", "WRITE", lat, 4096, 1.0);
                raws.add(new Raw(tooLate, lat));
                input.add(Decoded.of(tooLate));
            }
            if (sec == 69) {
                // Too late for every window (1 min window [0, 60000): 59999 + 5000 <= 68999): dropped, counted.
                long[] lat = TestData.latencies(10_002, 50, 300_000);
                input.add(Decoded.of(TestData.io(RUN, 0, 30_000, "h1", "vm2", "sdb", "READ", lat, 4096, 1.0)));
            }
            if (sec == 30) {
                // A wrong clock, a day ahead: not analysed (the watermark would never reach its windows), counted.
                long[] lat = TestData.latencies(10_003, 10, 300_000);
                input.add(Decoded.of(TestData.io(RUN, 0, System.currentTimeMillis() + 86_400_000L, "h1", "vm1", "sdb",
                        "READ", lat, 4096, 1.0)));
            }
            if (sec == 12) {
                input.add(Decoded.dead(DeadLetter.of("ioscale.io_samples", 3, 77, 5L, 999,
                        "unknown_schema_id: schema id 999 is not in the registry", null, new byte[] {0, 0, 0, 3, (byte) 231, 1})));
            }
        }

        JobExecutionResult result = run(input, List.of(), List.of(), List.of(), options("--slo", "none"));

        assertThat(result.<Long>getAccumulatorResult(CountTooLate.accumulatorName("io_samples"))).isEqualTo(1L);
        assertThat(result.<Long>getAccumulatorResult(CountTooLate.accumulatorName("io_fleet"))).isEqualTo(1L);
        assertThat(result.<Long>getAccumulatorResult(SplitDeadLetters.accumulatorName("io-samples"))).isEqualTo(1L);
        assertThat(result.<Long>getAccumulatorResult(SplitDeadLetters.tooFarAheadAccumulatorName("io-samples")))
                .isEqualTo(1L);
        assertThat(Collected.of(DeadLetter.class)).singleElement()
                .satisfies(d -> assertThat(d.reasonCode()).isEqualTo("unknown_schema_id"));
        assertThat(Collected.of(DeadLetterRow.class)).hasSize(1);

        // The sample too late for its 1 s window is absent from the 1 s rollups only; the one too late for
        // every window is in none (it was never added to `raws`).
        IoSample tooLate = raws.stream().filter(r -> r.sample.tsMs == 2_500).findFirst().orElseThrow().sample;
        for (Grain grain : Grain.values()) {
            List<Raw> included = grain == Grain.S1 ? raws.stream().filter(r -> r.sample != tooLate).toList() : raws;
            checkSourceRollups(grain, included);
            checkFleetRollups(grain, included);
        }

        // The late sample re-fired its 1 s window: two rows, the second (larger version) holds the merge.
        List<IoRollupRow> refired = Collected.of(IoRollupRow.class).stream()
                .filter(r -> r.grain == Grain.S1 && r.windowStartMs == 1_000 && r.vm.equals("vm1")
                        && r.direction.equals("READ"))
                .toList();
        assertThat(refired).hasSize(2);
        assertThat(refired.get(1).version()).isEqualTo(refired.get(0).version() + 1);
        assertThat(refired.get(1).stats.ops).isEqualTo(refired.get(0).stats.ops + 77);
    }

    /** Last row per identity (what ReplacingMergeTree keeps: the largest version). */
    private static <R> Map<String, R> latest(List<R> rows, java.util.function.Function<R, String> key,
                                             java.util.function.ToLongFunction<R> version) {
        Map<String, R> out = new HashMap<>();
        for (R r : rows) {
            out.merge(key.apply(r), r, (a, b) -> version.applyAsLong(b) >= version.applyAsLong(a) ? b : a);
        }
        return out;
    }

    private static void checkSourceRollups(Grain grain, List<Raw> raws) {
        Map<String, List<Raw>> expected = raws.stream().collect(Collectors.groupingBy(r -> {
            IoSample s = r.sample;
            return Math.floorDiv(s.tsMs, grain.windowMs()) * grain.windowMs() + "/" + s.host + "/" + s.vm + "/"
                    + s.target + "/" + s.direction;
        }));
        Map<String, IoRollupRow> got = latest(
                Collected.of(IoRollupRow.class).stream().filter(r -> r.grain == grain).toList(),
                r -> r.windowStartMs + "/" + r.host + "/" + r.vm + "/" + r.target + "/" + r.direction,
                IoRollupRow::version);
        assertThat(got.keySet()).as("%s windows", grain).isEqualTo(expected.keySet());
        for (Map.Entry<String, List<Raw>> e : expected.entrySet()) {
            IoRollupRow row = got.get(e.getKey());
            assertThat(row.table()).isEqualTo("io_samples_" + grain.suffix());
            assertThat(row.windowEndMs - row.windowStartMs).isEqualTo(grain.windowMs());
            checkStats(grain + " " + e.getKey(), row.stats, e.getValue(), grain.windowMs());
        }
    }

    private static void checkFleetRollups(Grain grain, List<Raw> raws) {
        Map<Long, List<Raw>> expected = raws.stream().collect(Collectors.groupingBy(
                r -> Math.floorDiv(r.sample.tsMs, grain.windowMs()) * grain.windowMs()));
        Map<String, FleetRollupRow> got = latest(
                Collected.of(FleetRollupRow.class).stream().filter(r -> r.grain == grain).toList(),
                r -> Long.toString(r.windowStartMs), FleetRollupRow::version);
        assertThat(got).hasSize(expected.size());
        for (Map.Entry<Long, List<Raw>> e : expected.entrySet()) {
            FleetRollupRow row = got.get(Long.toString(e.getKey()));
            List<Raw> in = e.getValue();
            checkStats("fleet " + grain + " " + e.getKey(), row.stats, in, grain.windowMs());
            // The fleet histogram is the histogram of every I/O of the window, exactly.
            LatencyHistogram all = TestData.histogram(TestData.concat(in.stream().map(Raw::latencies).toList()));
            assertThat(row.stats.buckets()).isEqualTo(all.toSparse());
            assertThat(row.sources).isEqualTo(in.stream().map(r -> r.sample.host + r.sample.vm + r.sample.target)
                    .distinct().count());
            assertThat(row.stats.readOps).isEqualTo(in.stream().filter(r -> r.sample.isRead())
                    .mapToLong(r -> r.sample.ops).sum());
        }
    }

    /** Sums, rates and quantiles against the raw latencies of the samples in one window. */
    private static void checkStats(String what, IoStats st, List<Raw> in, long windowMs) {
        long[] all = TestData.concat(in.stream().map(Raw::latencies).toList());
        long[] sorted = TestData.sorted(all);
        long ops = in.stream().mapToLong(r -> r.sample.ops).sum();
        long bytes = in.stream().mapToLong(r -> r.sample.bytes).sum();
        double t = windowMs / 1000.0;
        assertThat(st.samples).as(what).isEqualTo(in.size());
        assertThat(st.ops).as(what).isEqualTo(ops);
        assertThat(st.bytes).as(what).isEqualTo(bytes);
        assertThat(st.iops).as(what).isCloseTo(ops / t, within(1e-9));
        assertThat(st.mbPerS).as(what).isCloseTo(bytes / 1e6 / t, within(1e-9));
        assertThat(st.outstandingIos).as(what)
                .isCloseTo(in.stream().mapToDouble(r -> r.sample.outstandingIos).sum() / t, within(1e-9));
        assertThat(st.latencyCount).as(what).isEqualTo(all.length);
        assertThat(st.latencySumNs).as(what).isEqualTo(java.util.Arrays.stream(all).sum());
        assertThat(st.latencyMinNs).as(what).isEqualTo(sorted[0]);
        assertThat(st.latencyMaxNs).as(what).isEqualTo(sorted[sorted.length - 1]);
        assertThat(st.latencyMeanNs).as(what).isCloseTo((double) st.latencySumNs / all.length, within(1e-6));
        LatencyQuantiles q = st.quantiles;
        assertThat(q.n).as(what).isEqualTo(all.length);
        for (int i = 0; i < LatencyQuantiles.LEVELS.length; i++) {
            double level = LatencyQuantiles.LEVELS[i];
            boolean tooFew = all.length < LatencyHistogram.requiredN(level);
            assertThat(q.tooFewSamples[i]).as("%s p%s too few", what, level).isEqualTo(tooFew);
            if (tooFew) {
                assertThat(q.valuesNs[i]).as("%s p%s = max", what, level).isEqualTo(sorted[sorted.length - 1]);
            } else {
                long exact = TestData.exactQuantile(sorted, level);
                assertThat((double) q.valuesNs[i]).as("%s p%s vs exact %d", what, level, exact)
                        .isCloseTo(exact, within(exact / 256.0));
            }
        }
    }

    // ------------------------------------------------------------------------------------------- steps

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void stepRowsSummarizeTheSteadyStateAndFlagTheSaturatedStep() throws Exception {
        // Three 20 s steps, 2 VMs on one host, an 8 Gbps FC port (800 MB/s payload per the run's links).
        // Steps 0 and 1 scale (load x2, IOPS x1.8); step 2 adds 50 % load for +4 % IOPS at +45 % latency,
        // with the port's RX direction at ~97 % of 800 MB/s: saturated on the port.
        long stepMs = 20_000;
        int[] vms = {1, 2, 3};
        double[] iopsPerVm = {40_000, 36_000, 25_000}; // fleet: 40k, 72k, 75k
        long[] medianNs = {100_000, 110_000, 160_000};
        int rampS = 3;
        int block = 8192;
        List<Decoded<IoSample>> io = new ArrayList<>();
        List<Decoded<RunEvent>> runs = new ArrayList<>();
        List<Decoded<CpuSample>> cpu = new ArrayList<>();
        List<Decoded<PortSample>> port = new ArrayList<>();
        RunEvent started = TestData.runEvent(RunEvent.RUN_STARTED, RUN, 0, -1);
        started.scenario = "it-steps";
        started.links = List.of(TestData.link("h1", "fc0", "FC_HBA", 8_500_000_000L, 800_000_000L));
        runs.add(Decoded.of(started));
        Map<Integer, List<long[]>> steadyLatencies = new HashMap<>();
        Map<Integer, long[]> steadyOps = new HashMap<>();
        int seed = 100;
        for (int step = 0; step < 3; step++) {
            long start = step * stepMs; // steps on 10 s boundaries: every 10 s port/CPU window is whole
            RunEvent s = TestData.runEvent(RunEvent.STEP_STARTED, RUN, start, step);
            s.load = TestData.load(vms[step], 8);
            s.stepLabel = vms[step] + " VMs";
            runs.add(Decoded.of(s));
            long fleetOpsSteady = 0;
            for (int sec = 0; sec < stepMs / 1000; sec++) {
                long ts = start + sec * 1000L;
                boolean ramp = sec < rampS;
                for (int vm = 0; vm < vms[step]; vm++) {
                    int n = (int) (iopsPerVm[step] / 100 * (ramp ? 0.3 : 1.0)); // 1 % of the I/Os, to stay small
                    long[] lat = TestData.latencies(seed++, n, medianNs[step]);
                    IoSample sample = TestData.io(RUN, step, ts, "h1", "vm" + vm, "sdb", "READ", lat, block * 100, 8.0);
                    sample.ops = n * 100L; // scale ops back up; latencies stand for a 1 % sample
                    io.add(Decoded.of(sample));
                    if (!ramp) {
                        steadyLatencies.computeIfAbsent(step, k -> new ArrayList<>()).add(lat);
                        fleetOpsSteady += sample.ops;
                    }
                }
                cpu.add(Decoded.of(TestData.cpu(RUN, step, ts, "h1", "HYPERVISOR", 30 + 20 * step, 5_000 * (step + 1))));
                cpu.add(Decoded.of(TestData.cpu(RUN, step, ts, "h1", "HOST", 99, 1))); // ignored: HYPERVISOR wins
                // RX at 45 %, 80 %, 97 % of the 800 MB/s payload rate.
                port.add(Decoded.of(TestData.port(RUN, step, ts, "h1", "fc0", "FC_HBA", 8_500_000_000L,
                        (long) (RX_SHARE[step] * 800e6), 1_000_000)));
            }
            steadyOps.put(step, new long[] {fleetOpsSteady});
            RunEvent ended = TestData.runEvent(RunEvent.STEP_ENDED, RUN, start + stepMs, step);
            ended.startMs = start;
            ended.endMs = start + stepMs;
            runs.add(Decoded.of(ended));
        }
        runs.add(Decoded.of(TestData.runEvent(RunEvent.RUN_ENDED, RUN, 3 * stepMs, -1)));

        run(io, runs, cpu, port, options("--steady-state", "ramp-up-s=" + rampS + ",tail-s=0", "--slo", "p50 < 150 us",
                "--load-axis", "vm-count", "--step-retention", "1 h"));
        // Live verdicts judge complete seconds only (StepAnalyzer: a timer per second), so the port evidence of
        // step 2 is always there, however far the I/O stream runs ahead of the port stream.

        Map<String, StepRow> rows = latest(Collected.of(StepRow.class), r -> Integer.toString(r.stepIndex),
                StepRow::version);
        assertThat(rows).hasSize(3);
        for (int step = 0; step < 3; step++) {
            StepRow row = rows.get(Integer.toString(step));
            int seconds = (int) (stepMs / 1000) - rampS;
            assertThat(row.steadyReason).isEqualTo("CONFIGURED");
            assertThat(row.steadySeconds).isEqualTo(seconds);
            assertThat(row.steadyStartMs).isEqualTo(step * stepMs + rampS * 1000L);
            assertThat(row.load).isEqualTo(vms[step]);
            assertThat(row.scenario).isEqualTo("it-steps");
            assertThat(row.ops).isEqualTo(steadyOps.get(step)[0]);
            assertThat(row.iops).isCloseTo((double) row.ops / seconds, within(1e-6));
            long[] lat = TestData.sorted(TestData.concat(steadyLatencies.get(step)));
            assertThat(row.quantiles.n).isEqualTo(lat.length);
            long exactP99 = TestData.exactQuantile(lat, 0.99);
            assertThat((double) row.quantiles.valueNs(0.99)).isCloseTo(exactP99, within(exactP99 / 256.0));
            assertThat(row.quantiles.tooFew(0.99999)).isTrue(); // N < 10^6: p99.999 is the max
            assertThat(row.quantiles.valueNs(0.99999)).isEqualTo(lat[lat.length - 1]);
            assertThat(row.cpuUtilizationPct).isCloseTo(30 + 20 * step, within(1e-9));
            assertThat(row.interruptsPerS).isCloseTo(5_000 * (step + 1), within(1e-6));
            assertThat(row.cpuHottestHost).isEqualTo("h1");
            assertThat(row.portHottest).isEqualTo("h1/fc0 RX");
        }
        StepRow s0 = rows.get("0");
        StepRow s1 = rows.get("1");
        StepRow s2 = rows.get("2");
        assertThat(s0.throughputGainPct).isNaN();
        assertThat(s0.scalingEfficiencyPct).isCloseTo(100, within(1e-9));
        assertThat(s1.throughputGainPct).isCloseTo((s1.iops / s0.iops - 1) * 100, within(1e-9));
        assertThat(s1.scalingEfficiencyPct).isCloseTo(s1.iops / (s0.iops * 2) * 100, within(1e-9));
        assertThat(s1.saturationStatus).isEqualTo("SCALING");
        // Little: 8 outstanding per VM reported; expected = IOPS x mean latency.
        assertThat(s1.littlesMeasuredIos).isCloseTo(8.0 * 2, within(1e-9));
        assertThat(s1.littlesExpectedIos).isCloseTo(s1.iops * s1.latencyMeanNs / 1e9, within(1e-6));
        assertThat(s2.saturationStatus).isEqualTo("SATURATED");
        assertThat(s2.saturationBottleneck).isEqualTo("PORT");
        assertThat(s2.portMaxUtilizationPct).isGreaterThan(95);

        List<AlertRow> alerts = Collected.of(AlertRow.class);
        assertThat(alerts).anySatisfy(a -> {
            assertThat(a.kind).isEqualTo(AlertRow.SATURATION);
            assertThat(a.phase).isEqualTo(AlertRow.FINAL);
            assertThat(a.stepIndex).isEqualTo(2);
            assertThat(a.resource).isEqualTo("port h1/fc0 RX");
            assertThat(a.evidence).contains("h1/fc0 RX");
        });
        assertThat(alerts).anySatisfy(a -> {
            assertThat(a.kind).isEqualTo(AlertRow.SATURATION);
            assertThat(a.phase).isEqualTo(AlertRow.LIVE);
            assertThat(a.stepIndex).isEqualTo(2);
            assertThat(a.eventTsMs).isLessThan(3 * stepMs); // raised before the step ended
        });
        // The median of step 2 (~160 us) breaches 50 % < 150 us; steps 0 and 1 (100, 110 us) meet it.
        assertThat(alerts).filteredOn(a -> a.kind.equals(AlertRow.SLO_BREACH)).isNotEmpty().allSatisfy(a -> {
            assertThat(a.stepIndex).isEqualTo(2);
            assertThat(a.resource).isEqualTo("latency p50 < 150 us");
            assertThat(a.value).isGreaterThan(150_000);
        });
        assertThat(alerts).filteredOn(a -> a.kind.equals(AlertRow.SATURATION))
                .allSatisfy(a -> assertThat(a.stepIndex).isEqualTo(2));

        List<UslFitRow> usl = Collected.of(UslFitRow.class);
        assertThat(usl).extracting(u -> u.throughStep).contains(0, 1, 2);
        UslFitRow last = usl.stream().max(Comparator.comparingInt(u -> u.throughStep)).orElseThrow();
        assertThat(last.points).isEqualTo(3);
        assertThat(last.fitted).isTrue();

        // CPU and port rollups ride along, at every grain: each step is 20 s (steps start on 10 s boundaries),
        // one sample per second, so per step 20 rows of 1 s, 2 of 10 s and 1 of 1 min.
        Map<String, CpuRollupRow> cpuRows = latest(Collected.of(CpuRollupRow.class).stream()
                        .filter(c -> c.scope.equals("HYPERVISOR")).toList(),
                c -> c.table() + "/" + c.stepIndex + "/" + c.windowStartMs, CpuRollupRow::version);
        for (Grain grain : Grain.values()) {
            long perStep = Math.min(stepMs, grain.windowMs()) / 1000;
            for (int step = 0; step < 3; step++) {
                int s = step;
                List<CpuRollupRow> inStep = cpuRows.values().stream()
                        .filter(c -> c.grain == grain && c.stepIndex == s).toList();
                assertThat(inStep).as("cpu %s step %d", grain, step).hasSize((int) (stepMs / 1000 / perStep));
                assertThat(inStep).allSatisfy(c -> {
                    assertThat(c.table()).isEqualTo("cpu_samples_" + grain.suffix());
                    assertThat(c.samples).isEqualTo(perStep);
                    // Interval-weighted: a 1 min window the step covers for 20 s still shows the step's level.
                    assertThat(c.utilizationPct).isCloseTo(30 + 20 * s, within(1e-9));
                    assertThat(c.interruptsPerS).isCloseTo(5_000 * (s + 1), within(1e-6));
                });
            }
        }
        // Declared 800 MB/s, or (if a port sample beats RUN_STARTED to the join) 8.5 Gbps = 8GFC = 800 MB/s.
        // Rates divide by the window: the 1 min window holds 20 s of a step, so a third of its rate.
        Map<String, PortRollupRow> portRows = latest(Collected.of(PortRollupRow.class),
                p -> p.table() + "/" + p.stepIndex + "/" + p.windowStartMs, PortRollupRow::version);
        for (Grain grain : Grain.values()) {
            long perStep = Math.min(stepMs, grain.windowMs()) / 1000;
            assertThat(portRows.values().stream().filter(p -> p.grain == grain).count()).as("port %s", grain)
                    .isEqualTo(3 * stepMs / 1000 / perStep);
        }
        assertThat(portRows.values()).allSatisfy(p -> {
            assertThat(p.capacityBytesPerS).isEqualTo(800e6);
            double covered = Math.min(stepMs, p.grain.windowMs()) / (double) p.grain.windowMs();
            assertThat(p.rxUtilizationPct).as(p.toString())
                    .isCloseTo(RX_SHARE[p.stepIndex] * 100 * covered, within(1e-6));
        });
    }

    // ------------------------------------------------------------------------------------------- harness

    /** The job's options for these tests: event time without delay or idleness, no early firing. */
    private static AnalyticsOptions options(String... args) {
        List<String> all = new ArrayList<>(List.of("--out-of-orderness", "0 ms", "--idleness", "0 ms",
                "--allowed-lateness", LATENESS.toMillis() + " ms", "--early-fire-delay", "0 ms"));
        all.addAll(List.of(args));
        return TestData.options(all.toArray(String[]::new));
    }

    private static JobExecutionResult run(List<Decoded<IoSample>> io, List<Decoded<RunEvent>> runs,
                                          List<Decoded<CpuSample>> cpu, List<Decoded<PortSample>> port,
                                          AnalyticsOptions options) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        // A bounded source needs at least one element: fill empty inputs with a record of an unrelated run.
        if (runs.isEmpty()) {
            runs = List.of(Decoded.of(TestData.runEvent(RunEvent.RUN_STARTED, "other", 0, -1)));
        }
        if (cpu.isEmpty()) {
            cpu = List.of(Decoded.of(TestData.cpu("other", 0, 0, "hx", "HOST", 1, 1)));
        }
        if (port.isEmpty()) {
            port = List.of(Decoded.of(TestData.port("other", 0, 0, "hx", "p", "NIC", 0, 1, 1)));
        }
        AnalyticsJob.Sources sources = new AnalyticsJob.Sources(
                Collected.source(AnalyticsJob.IO_TYPE, io), Collected.source(AnalyticsJob.RUN_TYPE, runs),
                Collected.source(AnalyticsJob.CPU_TYPE, cpu), Collected.source(AnalyticsJob.PORT_TYPE, port), 0, true);
        return new AnalyticsJob(sources, Collected.sinks(), options).execute(env);
    }
}
