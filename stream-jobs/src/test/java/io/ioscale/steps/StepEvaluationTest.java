package io.ioscale.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SloEvaluator;
import io.ioscale.analytics.SteadyStateConfig;
import io.ioscale.analytics.SteadyStateWindow;
import io.ioscale.records.PortSample;
import io.ioscale.records.StepRow;
import io.ioscale.sources.LinkCapacityRule;
import io.ioscale.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure step evaluation: windows and figures for per-second, multi-second and whole-step samples. */
class StepEvaluationTest {
    private static final String RUN = "r";
    private static final SteadyStateConfig AUTO = SteadyStateConfig.defaults();
    private final StepEvaluation evaluation = new StepEvaluation(new StepAnalysisConfig(AUTO,
            SaturationConfig.defaults(), SloEvaluator.parse("p99 < 5 ms"), LoadAxis.TOTAL_OUTSTANDING, 5_000,
            3_600_000L, 5, 0));

    private static StepAnalyzer.StepInfo step(int index, int qd) {
        StepAnalyzer.StepInfo s = StepAnalyzer.StepInfo.of(index);
        s.load = TestData.load(1, qd);
        return s;
    }

    /** One sample per source (ops I/Os around medianNs) starting at startMs, spanning spanMs. */
    private static StepSecond sample(long startMs, long spanMs, int ops, long medianNs, long seed) {
        return new StepSecond(startMs).add(TestData.fleetSecond(RUN, 0, startMs, spanMs,
                TestData.latencies(seed, ops, medianNs), 4096, 0));
    }

    private StepRow evaluate(StepAnalyzer.StepInfo step, List<StepSecond> series, long startMs, long endMs) {
        SteadyStateWindow w = StepEvaluation.window(series, startMs, endMs, AUTO);
        return evaluation.evaluate(RUN, "", step, series, w, startMs, endMs, List.of()).row();
    }

    @Test
    void wholeStepSamplesMakeTheirSpanTheSteadyWindow() {
        // Four targets of an Iometer step, each one 60 s result: 6,000 / 3,000 / 1,200 / 600 I/Os.
        List<StepSecond> series = List.of(sample(10_000, 60_000, 6_000, 500_000, 1),
                sample(10_000, 60_000, 3_000, 500_000, 2), sample(10_000, 60_000, 1_200, 500_000, 3),
                sample(10_000, 60_000, 600, 500_000, 4));
        StepSecond merged = new StepSecond(10_000);
        series.forEach(s -> s.rows.forEach(merged::add));
        StepRow row = evaluate(step(0, 4), List.of(merged), 10_000, 70_000);
        assertThat(row.steadyReason).isEqualTo("WHOLE_STEP");
        assertThat(row.steadyUsable).isTrue();
        assertThat(row.steadySeconds).isEqualTo(60);
        assertThat(row.steadyStartMs).isEqualTo(10_000);
        assertThat(row.steadyEndMs).isEqualTo(70_000);
        assertThat(row.ops).isEqualTo(10_800);
        assertThat(row.iops).isCloseTo(180.0, within(1e-9)); // 10,800 / 60 s
        assertThat(row.mbPerS).isCloseTo(180.0 * 4096 / 1e6, within(1e-9));
        assertThat(row.quantiles.n).isEqualTo(10_800);
        assertThat(row.stepSamples).isEqualTo(4);
    }

    @Test
    void wholeStepSamplesStartingSecondsApartStillCoverTheStep() {
        // VMFleet: each VM's DISKSPD starts a little later; the fleet's I/Os over the time they span together.
        List<StepSecond> series = new ArrayList<>();
        for (int vm = 0; vm < 4; vm++) {
            series.add(sample(vm * 1_500L, 120_000, 12_000, 800_000, vm));
        }
        StepRow row = evaluate(step(0, 8), series, 0, 125_000);
        assertThat(row.steadyReason).isEqualTo("WHOLE_STEP");
        assertThat(row.ops).isEqualTo(48_000);
        assertThat(row.iops).isCloseTo(48_000 / 124.5, within(1e-9)); // from 0 to 4.5 + 120 s
        assertThat(row.steadySeconds).isEqualTo(125); // from 0 to 4.5 + 120 s, rounded
    }

    @Test
    void aWholeStepSampleGivesWhatTheSameIosGiveAtOneSecondResolution() {
        long[] latencies = TestData.latencies(7, 60 * 500, 400_000);
        List<StepSecond> perSecond = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            long[] second = java.util.Arrays.copyOfRange(latencies, i * 500, (i + 1) * 500);
            perSecond.add(new StepSecond(i * 1000L).add(TestData.fleetSecond(RUN, 0, i * 1000L, second, 4096, 2)));
        }
        StepSecond whole = new StepSecond(0).add(TestData.fleetSecond(RUN, 0, 0, 60_000, latencies, 4096, 2));
        StepRow fine = evaluate(step(0, 2), perSecond, 0, 60_000);
        StepRow coarse = evaluate(step(0, 2), List.of(whole), 0, 60_000);
        assertThat(fine.steadySeconds).isEqualTo(60); // constant load: the detected window is the whole step
        assertThat(coarse.steadySeconds).isEqualTo(60);
        assertThat(coarse.ops).isEqualTo(fine.ops);
        assertThat(coarse.iops).isCloseTo(fine.iops, within(1e-9));
        assertThat(coarse.mbPerS).isCloseTo(fine.mbPerS, within(1e-9));
        assertThat(coarse.latencyMeanNs).isCloseTo(fine.latencyMeanNs, within(1e-6));
        assertThat(coarse.outstandingIos).isCloseTo(fine.outstandingIos, within(1e-9));
        assertThat(coarse.quantiles.valuesNs).isEqualTo(fine.quantiles.valuesNs);
        assertThat(coarse.latencyBucketCount).isEqualTo(fine.latencyBucketCount);
    }

    @Test
    void fiveSecondSamplesFindTheRampUpOnTheirSpreadRates() {
        // 5 s log intervals over 60 s: 10 s of ramp (100, then 300 IOPS), then 1,000 IOPS.
        List<StepSecond> series = new ArrayList<>();
        int[] iops = {100, 300, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
        for (int i = 0; i < iops.length; i++) {
            series.add(sample(i * 5_000L, 5_000, iops[i] * 5, 300_000, i));
        }
        StepRow row = evaluate(step(0, 4), series, 0, 60_000);
        assertThat(row.steadyReason).isEqualTo("DETECTED");
        assertThat(row.steadyStartMs).isEqualTo(10_000);
        assertThat(row.steadyEndMs).isEqualTo(60_000);
        assertThat(row.iops).isCloseTo(1000.0, within(1e-9));
        assertThat(row.ops).isEqualTo(50_000); // the ten samples centred in [10 s, 60 s)
        assertThat(row.steadyDetail).startsWith("samples of up to 5.0 s");
    }

    @Test
    void perSecondSamplesWithCollectorJitterKeepThePerSecondRule() {
        List<StepSecond> series = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            series.add(sample(i * 1000L, 1_003, 1000, 300_000, i)); // interval 1,003 ms: jitter, not a long sample
        }
        StepRow row = evaluate(step(0, 4), series, 0, 20_000);
        assertThat(row.steadyReason).isEqualTo("DETECTED");
        assertThat(row.iops).isCloseTo(1000.0, within(1e-9)); // I/Os per second with I/O, as before
    }

    @Test
    void aStepWithoutSecondsIsTooShort() {
        StepRow row = evaluate(step(0, 4), List.of(), 0, 10_000);
        assertThat(row.steadyReason).isEqualTo("TOO_SHORT");
        assertThat(row.ops).isZero();
    }

    @Test
    void aPortsDeclaredCapacityAndDuplexHoldWhenSomeSamplesCameBeforeTheRunsLinks() {
        // A half-duplex SAS HBA declared at 4.0 GB/s; the step's first sample was processed before the run's
        // links were known and carries its own 48 Gb/s (4.8 GB/s) as if full duplex.
        List<StepSecond> steady = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            PortSample p = TestData.port(RUN, 0, i * 1000L, "node1", "SAS-HBA", "SAS", 48_000_000_000L,
                    60_000_000, 40_000_000);
            if (i == 0) {
                p.capacityBytesPerS = 4.8e9;
                p.capacitySource = LinkCapacityRule.FROM_LINK_SPEED;
            } else {
                p.capacityBytesPerS = 4.0e9;
                p.capacitySource = LinkCapacityRule.FROM_RUN_EVENT;
                p.fullDuplex = false;
            }
            steady.add(new StepSecond(i * 1000L, List.of(), List.of(p)));
        }
        StepRow row = new StepRow();
        StepEvaluation.portsOver(steady, 0, 6_000, row);
        // Half duplex: both directions carry rx + tx = 100 MB/s of 4.0 GB/s.
        assertThat(row.portMaxUtilizationPct).isCloseTo(2.5, within(1e-9));
        assertThat(row.ports).extracting(StepRow.PortUse::name).containsExactly("node1/SAS-HBA RX", "node1/SAS-HBA TX");
    }
}
