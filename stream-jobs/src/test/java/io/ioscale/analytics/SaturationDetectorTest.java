package io.ioscale.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.analytics.SaturationVerdict.Bottleneck;
import io.ioscale.analytics.SaturationVerdict.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Known answers from the lab reports (SeedCurves), fed step by step as the streaming job does. */
class SaturationDetectorTest {

    private final SaturationDetector detector = new SaturationDetector();

    /** Feeds the steps one at a time, as each step's steady state becomes known, collecting each live verdict. */
    private List<SaturationVerdict> live(List<StepSummary> steps) {
        List<StepSummary> soFar = new ArrayList<>();
        List<SaturationVerdict> verdicts = new ArrayList<>();
        for (StepSummary s : steps) {
            soFar.add(s);
            verdicts.add(detector.assessLatest(soFar));
        }
        return verdicts;
    }

    private static void assertVerdict(SaturationVerdict v, Status status, Bottleneck bottleneck,
                                      String... evidence) {
        assertThat(v.status()).isEqualTo(status);
        assertThat(v.bottleneck()).isEqualTo(bottleneck);
        assertThat(v.evidence()).contains(evidence);
    }

    @Test
    void seed000FlagsTheFourthWorkerWithTheHbaReadChannelAsEvidence() {
        List<SaturationVerdict> v = live(SeedCurves.seed000(SeedCurves.FC_8G_PAYLOAD_BYTES_PER_S, 45));

        assertThat(v).extracting(SaturationVerdict::status)
                .containsExactly(Status.UNDETERMINED, Status.SCALING, Status.SCALING, Status.SATURATED);
        SaturationVerdict sat = v.get(3);
        assertThat(sat.stepIndex()).isEqualTo(3);
        assertThat(sat.load()).isEqualTo(4.0);
        assertThat(sat.bottleneck()).isEqualTo(Bottleneck.PORT);
        assertThat(sat.port().portId()).isEqualTo("QLE2560-0");
        assertThat(sat.port().direction()).isEqualTo(Direction.RX);
        assertThat(sat.port().utilizationPct()).isCloseTo(98.9, within(0.05));
        assertThat(sat.point().throughputGainPct()).isCloseTo(5.0, within(1e-9));
        assertThat(sat.point().marginalGainRatio()).isCloseTo(0.15, within(1e-9));
        assertThat(sat.point().scalingEfficiency()).isCloseTo(128_772.0 / (73_000 * 4), within(1e-12));
        assertThat(sat.point().latencyGrowthPct()).isCloseTo((120 / 128_772.0) / (90 / 122_640.0) * 100 - 100,
                within(1e-9));
        assertThat(sat.evidence())
                .contains("pe1900/QLE2560-0 RX at 98.9% of its 800.0 MB/s payload rate (791.2 MB/s, >= 95%)")
                .contains("IOPS +5.0% for load +33.3% (marginal 0.15 < 0.25")
                .contains("mean latency +27.0% (733.9 us -> 931.9 us)");
        // The third step's port is at 94.2 %, under the bound, and the step still scales (marginal 0.40).
        assertThat(v.get(2).port().utilizationPct()).isCloseTo(94.2, within(0.05));
        assertThat(v.get(2).evidence()).contains("marginal 0.40 >= 0.25").contains("efficiency 0.56 >= 0.50");
        assertThat(detector.firstSaturation(SeedCurves.seed000(800e6, 45))).map(SaturationVerdict::stepIndex)
                .contains(3);
    }

    @Test
    void seed000At4KbKeepsScalingAtFortyPercentPerWorker() {
        // "IOPS performance increased about 40% with the addition of another worker ... exceeded 200,000 IOPS".
        List<StepSummary> steps = new ArrayList<>();
        double iops = 73_000;
        for (int w = 1; w <= 4; w++) {
            steps.add(StepSummary.builder(w - 1, w).iops(iops).mbPerS(iops * 4096 / 1e6)
                    .meanLatencyNs(30.0 * w / iops * 1e9)
                    .port("pe1900", "QLE2560-0", Direction.RX, 0.75 * iops * 4096, 800e6).build());
            iops *= 1.4;
        }
        assertThat(steps.get(3).iops()).isGreaterThan(200_000);
        assertThat(detector.assessAll(steps)).extracting(SaturationVerdict::status)
                .containsExactly(Status.UNDETERMINED, Status.SCALING, Status.SCALING, Status.SCALING);
    }

    @Test
    void portIsCheckedBeforeCpu() {
        List<SaturationVerdict> v = live(SeedCurves.seed000(800e6, 99));
        assertThat(v.get(3).bottleneck()).isEqualTo(Bottleneck.PORT);
        assertThat(v.get(3).cpu().utilizationPct()).isEqualTo(99.0); // seen, but the port wins
    }

    @Test
    void seed000WithTheSimulatorsPayloadRateIsNotAPortVerdict() {
        // With 838.9 MB/s per direction (the simulator's 8GFC payload) RX is at 94.3 %: under 95 %, so the port
        // is not named; CPU under 90 % either: the knee is left to the device.
        assertVerdict(detector.assessLatest(SeedCurves.seed000(838.9e6, 45)), Status.SATURATED,
                Bottleneck.DEVICE_KNEE, "no port >= 95% (hottest pe1900/QLE2560-0 RX 94.3%)",
                "no CPU >= 90% (hottest pe1900 45.0%)");
    }

    @Test
    void seed003PlateauPastFortyVmsPerNodeIsCpuWhenTheHostsAreFull() {
        List<SaturationVerdict> v = live(SeedCurves.seed003(SeedCurves::cpuBound, 30));

        assertThat(v).extracting(SaturationVerdict::status).containsExactly(
                Status.UNDETERMINED, Status.SCALING, Status.SCALING, Status.SCALING, Status.SCALING,
                Status.SATURATED, Status.SATURATED, Status.SATURATED, Status.SATURATED);
        SaturationVerdict first = v.get(5);
        assertThat(first.load()).isEqualTo(50.0);
        assertThat(first.bottleneck()).isEqualTo(Bottleneck.CPU);
        assertThat(first.cpu().host()).isEqualTo("node2");
        assertThat(first.cpu().utilizationPct()).isCloseTo(93.5, within(1e-9));
        assertThat(first.point().throughputGainPct()).isCloseTo(503.0 / 492 * 100 - 100, within(1e-9)); // +2.2 %
        assertThat(first.evidence()).contains("host node2 CPU at 93.5% of 80 logical processors (>= 90%)")
                .contains("IOPS +2.2% for load +25.0% (marginal 0.09 < 0.25")
                .contains("mean latency +22.3% (650.4 us -> 795.2 us)");
    }

    @Test
    void seed003PlateauWithNoPortOrCpuSaturatedIsTheDeviceKnee() {
        // The report's own CPU figure: 15-16 % past 40 VMs per node; RDMA NICs at 30 %.
        List<SaturationVerdict> v = live(SeedCurves.seed003(SeedCurves::cpuLow, 30));
        Optional<SaturationVerdict> first = v.stream().filter(SaturationVerdict::saturated).findFirst();

        assertThat(first).isPresent();
        SaturationVerdict sat = first.get();
        assertThat(sat.stepIndex()).isEqualTo(5);
        assertThat(sat.bottleneck()).isEqualTo(Bottleneck.DEVICE_KNEE);
        assertThat(sat.evidence())
                .contains("device/latency knee: latency +22.3% vs IOPS +2.2% (10.0x as fast)")
                .contains("no port >= 95% (hottest node1/SLOT 3 Port 1 RX 30.0%)")
                .contains("no CPU >= 90% (hottest node2 16.5%)");
        // The 40-VM step (the knee itself: +23 % for +33 % load, marginal 0.69) still counts as scaling.
        assertThat(v.get(4).status()).isEqualTo(Status.SCALING);
        assertThat(v.get(4).point().marginalGainRatio()).isCloseTo(0.69, within(0.005));
    }

    @Test
    void stalledThroughputWithoutLatencyGrowthIsNotSaturation() {
        List<StepSummary> steps = List.of(
                StepSummary.builder(0, 1).iops(100_000).meanLatencyNs(500_000).build(),
                StepSummary.builder(1, 2).iops(101_000).meanLatencyNs(505_000).build());
        assertVerdict(detector.assessLatest(steps), Status.UNDETERMINED, Bottleneck.NONE,
                "did not grow by more than 10%");
    }

    @Test
    void efficiencyAloneCanStallAGradualCurve() {
        // Each step keeps a marginal ratio of ~0.4 (above 0.25) but efficiency sinks under 0.5 at load 8.
        double[] loads = {1, 2, 4, 8};
        double[] iops = {10_000, 14_000, 19_600, 27_440};
        List<StepSummary> steps = new ArrayList<>();
        for (int i = 0; i < loads.length; i++) {
            steps.add(StepSummary.builder(i, loads[i]).iops(iops[i]).meanLatencyNs(loads[i] / iops[i] * 1e9).build());
        }
        List<SaturationVerdict> v = detector.assessAll(steps);
        assertThat(v).extracting(SaturationVerdict::status)
                .containsExactly(Status.UNDETERMINED, Status.SCALING, Status.SATURATED, Status.SATURATED);
        assertThat(v.get(2).point().scalingEfficiency()).isCloseTo(0.49, within(1e-9));
        assertThat(v.get(2).evidence()).contains("marginal 0.40 >= 0.25").contains("efficiency 0.49 < 0.50");
        assertThat(v.get(2).bottleneck()).isEqualTo(Bottleneck.DEVICE_KNEE);
        assertThat(v.get(2).evidence()).contains("no port figures").contains("no CPU figures");
    }

    @Test
    void undeterminedWhenTheLoadDoesNotIncreaseOrLatencyIsUnknown() {
        List<StepSummary> sameLoad = List.of(
                StepSummary.builder(0, 4).iops(100_000).meanLatencyNs(400_000).build(),
                StepSummary.builder(1, 4).iops(50_000).meanLatencyNs(800_000).build());
        assertThat(detector.assessLatest(sameLoad).evidence()).contains("load did not increase (+0.0%)");

        List<StepSummary> noLatency = List.of(
                StepSummary.builder(0, 1).iops(100_000).build(),
                StepSummary.builder(1, 2).iops(101_000).build());
        SaturationVerdict v = detector.assessLatest(noLatency);
        assertThat(v.status()).isEqualTo(Status.UNDETERMINED);
        assertThat(v.evidence()).contains("mean latency unknown").contains("no port or CPU at its limit");
        assertThatThrownBy(() -> detector.assessLatest(List.of())).hasMessageContaining("no step");
    }

    @Test
    void aNetworkStepWithoutLatencyIsSaturatedByAFullLinkOrABusyHost() {
        // iperf3 -P 1, 2, 4 on 10 GbE: 4.7, 9.3, 9.4 Gbit/s of payload; no latency figures.
        SaturationDetector mb =
                new SaturationDetector(SaturationConfig.defaults().withMetric(ThroughputMetric.MB_PER_S));
        List<StepSummary> link = List.of(
                StepSummary.builder(0, 1).mbPerS(587.5).port("h", "eth0", Direction.TX, 587.5e6, 1187.5e6).build(),
                StepSummary.builder(1, 2).mbPerS(1162.5).port("h", "eth0", Direction.TX, 1162.5e6, 1187.5e6).build(),
                StepSummary.builder(2, 4).mbPerS(1175).port("h", "eth0", Direction.TX, 1175e6, 1187.5e6).build());
        List<SaturationVerdict> v = mb.assessAll(link);
        assertThat(v).extracting(SaturationVerdict::status)
                .containsExactly(Status.UNDETERMINED, Status.SCALING, Status.SATURATED);
        assertThat(v.get(2).bottleneck()).isEqualTo(Bottleneck.PORT);
        assertThat(v.get(2).evidence()).contains("port h/eth0").contains("98.9%").contains("MB/s +1.1%")
                .contains("mean latency unknown");

        List<StepSummary> cpu = List.of(
                StepSummary.builder(0, 1).mbPerS(300).cpu("h", 55, 2).build(),
                StepSummary.builder(1, 2).mbPerS(310).cpu("h", 97, 2).build());
        assertVerdict(mb.assessLatest(cpu), Status.SATURATED, Bottleneck.CPU,
                "host h CPU at 97.0% of 2 logical processors");
    }

    @Test
    void mbPerSecondMetricAndThresholdsComeFromTheConfig() {
        SaturationConfig d = SaturationConfig.defaults();
        SaturationConfig cfg = new SaturationConfig(ThroughputMetric.MB_PER_S, d.marginalGainRatio(),
                d.minEfficiency(), d.minLatencyGrowthPct(), 99.5, 40, d.littlesLawTolerance());
        List<StepSummary> steps = new ArrayList<>(SeedCurves.seed000(800e6, 45));
        StepSummary last = steps.get(3);
        steps.set(3, new StepSummary(last.stepIndex(), last.label(), last.load(), last.iops(), last.mbPerS(),
                last.meanLatencyNs(), null, null, last.cpus(), 61_000, last.ports(), last.outstandingIos()));
        SaturationVerdict v = new SaturationDetector(cfg).assessLatest(steps);
        assertThat(v.point().throughput()).isCloseTo(128_772 * 8192 / 1e6, within(1e-6));
        assertThat(v.bottleneck()).isEqualTo(Bottleneck.CPU); // port 98.9 % < 99.5 %, CPU 45 % >= 40 %
        assertThat(v.evidence()).contains("MB/s +5.0%").contains("host pe1900 CPU at 45.0% of 4 logical processors (>= 40%), 61000 interrupts/s;");
    }

    @Test
    void configDefaultsAndValidationNameTheBadKey() {
        SaturationConfig d = SaturationConfig.defaults();
        assertThat(d.metric()).isEqualTo(ThroughputMetric.IOPS);
        assertThat(d.marginalGainRatio()).isEqualTo(0.25);
        assertThat(d.minEfficiency()).isEqualTo(0.5);
        assertThat(d.minLatencyGrowthPct()).isEqualTo(10);
        assertThat(d.portUtilizationPct()).isEqualTo(95);
        assertThat(d.cpuUtilizationPct()).isEqualTo(90);

        assertThatThrownBy(() -> new SaturationConfig(ThroughputMetric.IOPS, 0.25, 1.5, 10, 95, 90, 0.1))
                .hasMessage("saturation setting 'min-efficiency' must be in [0, 1], got 1.5");
        assertThatThrownBy(() -> new SaturationConfig(ThroughputMetric.IOPS, 0.25, 0.5, -1, 95, 90, 0.1))
                .hasMessageContaining("'min-latency-growth-pct' must be a finite number >= 0, got -1");
        assertThatThrownBy(() -> new SaturationConfig(ThroughputMetric.IOPS, 0.25, 0.5, 10, 101, 90, 0.1))
                .hasMessageContaining("'port-utilization-pct' must be in [1, 100], got 101");
    }
}
