package io.ioscale.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.histogram.LatencyHistogram;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The seed 000 table of ScalingCurve's documentation, Little's law both ways, and the step summary builder. */
class ScalingCurveTest {

    @Test
    void seed000GainsEfficiencyAndLatencyGrowth() {
        ScalingCurve c = ScalingCurve.of(SeedCurves.seed000(800e6, 45));
        assertThat(c.size()).isEqualTo(4);
        assertThat(c.metric()).isEqualTo(ThroughputMetric.IOPS);

        ScalingPoint first = c.get(0);
        assertThat(first.hasPrevious()).isFalse();
        assertThat(first.throughputGainPct()).isNaN();
        assertThat(first.marginalGainRatio()).isNaN();
        assertThat(first.latencyGrowthPct()).isNaN();
        assertThat(first.scalingEfficiency()).isEqualTo(1.0);

        double[] gain = {40, 20, 5};
        double[] load = {100, 50, 100.0 / 3};
        double[] efficiency = {0.7, 0.56, 0.441};
        double[] latencyGrowth = {42.857, 25.0, 27.0};
        for (int k = 1; k < 4; k++) {
            ScalingPoint p = c.get(k);
            assertThat(p.throughputGainPct()).as("gain %d", k).isCloseTo(gain[k - 1], within(1e-9));
            assertThat(p.loadIncreasePct()).as("load %d", k).isCloseTo(load[k - 1], within(1e-9));
            assertThat(p.marginalGainRatio()).as("marginal %d", k).isCloseTo(gain[k - 1] / load[k - 1], within(1e-12));
            assertThat(p.scalingEfficiency()).as("efficiency %d", k).isCloseTo(efficiency[k - 1], within(0.0005));
            assertThat(p.latencyGrowthPct()).as("latency %d", k).isCloseTo(latencyGrowth[k - 1], within(0.05));
        }
        assertThat(c.latest().step().meanLatencyNs()).isCloseTo(931_880, within(1.0));
    }

    @Test
    void littlesLawHoldsForTheClosedLoopSeed() {
        for (ScalingPoint p : ScalingCurve.of(SeedCurves.seed000(800e6, 45)).points()) {
            LittlesLaw l = p.littlesLaw();
            assertThat(l.checked()).isTrue();
            assertThat(l.consistent()).isTrue();
            assertThat(l.expected()).isCloseTo(30 * p.load(), within(1e-9));
            assertThat(l.measured()).isEqualTo(30 * p.load());
            assertThat(l.relativeError()).isCloseTo(0, within(1e-12));
        }
    }

    @Test
    void littlesLawFlagsInconsistentTelemetry() {
        // 128,772 IOPS at 931.9 us imply 120 in flight; the fleet reports 60 (half the VMs' samples missing).
        LittlesLaw half = LittlesLaw.check(128_772, 120.0 / 128_772 * 1e9, 60, 0.10);
        assertThat(half.checked()).isTrue();
        assertThat(half.expected()).isCloseTo(120, within(1e-9));
        assertThat(half.relativeError()).isCloseTo(-0.5, within(1e-12));
        assertThat(half.consistent()).isFalse();
        assertThat(half.toString()).isEqualTo(
                "Little's law: expected 120.00 in flight, measured 60.00, error -50.0% (INCONSISTENT)");

        // 8 % off is inside the 10 % tolerance, 12 % is not.
        assertThat(LittlesLaw.check(100_000, 1_000_000, 108, 0.10).consistent()).isTrue();
        assertThat(LittlesLaw.check(100_000, 1_000_000, 112, 0.10).consistent()).isFalse();
        assertThat(LittlesLaw.check(100_000, 1_000_000, 112, 0.10).relativeError()).isCloseTo(0.12, within(1e-12));

        LittlesLaw unknown = LittlesLaw.check(100_000, 1_000_000, Double.NaN, 0.10);
        assertThat(unknown.checked()).isFalse();
        assertThat(unknown.consistent()).isFalse();
        assertThat(unknown.relativeError()).isNaN();
        assertThat(LittlesLaw.check(0, 1_000_000, 10, 0.10).checked()).isFalse(); // no I/O: nothing implied
        assertThatThrownBy(() -> LittlesLaw.check(1, 1, 1, -0.1)).hasMessageContaining("tolerance");

        StepSummary bad = StepSummary.builder(0, 1).iops(128_772).meanLatencyNs(120.0 / 128_772 * 1e9)
                .outstandingIos(60).build();
        assertThat(ScalingCurve.of(List.of(bad)).get(0).littlesLaw().consistent()).isFalse();
    }

    @Test
    void mbPerSecondMetricAndNonIncreasingLoad() {
        List<StepSummary> steps = List.of(
                StepSummary.builder(0, 32).iops(1000).mbPerS(128).meanLatencyNs(1e6).build(),
                StepSummary.builder(1, 64).iops(1500).mbPerS(192).meanLatencyNs(1.2e6).build(),
                StepSummary.builder(2, 16).iops(600).mbPerS(76.8).meanLatencyNs(0.9e6).build());
        ScalingCurve c = ScalingCurve.of(steps, ThroughputMetric.MB_PER_S, 0.1);
        assertThat(c.get(1).throughput()).isEqualTo(192);
        assertThat(c.get(1).throughputGainPct()).isCloseTo(50, within(1e-9));
        assertThat(c.get(1).scalingEfficiency()).isCloseTo(0.75, within(1e-12));
        assertThat(c.get(2).loadIncreasePct()).isCloseTo(-75, within(1e-9));
        assertThat(c.get(2).marginalGainRatio()).isNaN();
        assertThat(c.get(2).scalingEfficiency()).isCloseTo(76.8 / (128 * 0.5), within(1e-12));
        assertThatThrownBy(() -> ScalingCurve.of(List.of()).latest()).hasMessage("empty scaling curve");
    }

    @Test
    void builderTakesLatencyFromTheMergedHistogram() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(200_000, 99_000);  // 200 us
        h.record(2_000_000, 1_000); // 2 ms: 1 % of the I/Os
        StepSummary s = StepSummary.builder(2, 8).iops(100_000).latency(h).build();
        assertThat(s.meanLatencyNs()).isCloseTo(0.99 * 200_000 + 0.01 * 2_000_000, within(1e-6)); // exact sum/count
        assertThat(s.p99().n()).isEqualTo(100_000);
        assertThat(s.p99().tooFewSamples()).isFalse();
        assertThat(s.p99().valueNs()).isCloseTo(200_000L, within(200_000L / 256)); // rank 99,000 is the last 200 us
        assertThat(s.p99999().tooFewSamples()).isTrue(); // 10^5 < 10^6: the max, not a percentile
        assertThat(s.p99999().requiredN()).isEqualTo(1_000_000);
        assertThat(s.p99999().valueNs()).isEqualTo(2_000_000);

        StepSummary empty = StepSummary.builder(0, 1).latency(new LatencyHistogram()).build();
        assertThat(empty.meanLatencyNs()).isNaN();
        assertThat(empty.p99().n()).isZero();
    }

    @Test
    void stepSummaryValidatesItsInputs() {
        assertThatThrownBy(() -> StepSummary.builder(3, 0).build()).hasMessage("step 3: load must be a finite number > 0, got 0.0");
        assertThatThrownBy(() -> StepSummary.builder(3, 1).iops(-1).build()).hasMessageContaining("iops must be");
        assertThatThrownBy(() -> StepSummary.builder(3, 1).cpu("h", 101, 4)).hasMessageContaining("utilization_pct must be in [0, 100]");
        assertThatThrownBy(() -> StepSummary.builder(3, 1).port("h", "p", Direction.RX, 1, 0))
                .hasMessageContaining("capacity_bytes_per_s must be a finite number > 0");
        StepSummary s = StepSummary.builder(0, 1).port("h", "p", Direction.RX, 400e6, 800e6)
                .port("h", "p", Direction.TX, 700e6, 800e6).cpu("a", 10, 2).cpu("b", 30, 2).build();
        assertThat(s.hottestPort()).map(PortLoad::direction).contains(Direction.TX);
        assertThat(s.hottestPort().get().utilizationPct()).isCloseTo(87.5, within(1e-12));
        assertThat(s.hottestCpu()).map(HostCpu::host).contains("b");
        assertThat(s.ports().get(0).toString()).isEqualTo("h/p RX at 50.0% of 800.0 MB/s (400.0 MB/s)");
    }

    @Test
    void analyticsObjectsSurviveJavaSerialization() throws Exception {
        // Flink ships operators' fields and falls back to Kryo/Java serialization for these records.
        LatencyHistogram h = new LatencyHistogram();
        h.record(1000, 10);
        StepSummary s = SeedCurves.seed000(800e6, 45).get(3);
        StepSummary withHist = StepSummary.builder(0, 1).iops(1).latency(h).build();
        List<Object> objects = List.of(s, withHist, new SaturationDetector(), SaturationConfig.defaults(),
                SloEvaluator.parse("p99 < 1ms, mean < 500us"), SteadyStateConfig.defaults(),
                new SaturationDetector().assessLatest(SeedCurves.seed000(800e6, 45)));
        for (Object o : objects) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                out.writeObject(o);
            }
            Object back;
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                back = in.readObject();
            }
            assertThat(back.getClass()).isEqualTo(o.getClass());
            if (o instanceof Record) {
                assertThat(back).isEqualTo(o);
            }
        }
    }
}
