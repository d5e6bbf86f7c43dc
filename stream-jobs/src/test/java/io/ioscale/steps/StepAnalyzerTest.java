package io.ioscale.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ioscale.analytics.SaturationConfig;
import io.ioscale.analytics.SloEvaluator;
import io.ioscale.analytics.SteadyStateConfig;
import io.ioscale.records.AlertRow;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.records.StepRow;
import io.ioscale.records.UslFitRow;
import io.ioscale.testing.TestData;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** StepAnalyzer's timers and state, driven record by record and watermark by watermark. */
class StepAnalyzerTest {
    private static final String RUN = "r";
    private static final long STEP_MS = 30_000;
    private static final long LATENESS_MS = 5_000;
    private static final long CLOSE_IDLE_MS = 3_000;
    /** The sources' out-of-orderness: how far the watermark trails the newest second while records flow. */
    private static final long OUT_OF_ORDERNESS_MS = 2_000;

    private KeyedTwoInputStreamOperatorTestHarness<String, RunEvent, StepInput, StepRow> h;
    /** The fleet stream's watermark that fleet rows carry: by default the operator's, i.e. no input lags. */
    private long fleetWatermark = Long.MIN_VALUE;
    private boolean fleetLags;

    @BeforeEach
    void open() throws Exception {
        StepAnalysisConfig settings = new StepAnalysisConfig(SteadyStateConfig.configured(2, 0),
                SaturationConfig.defaults(), SloEvaluator.parse("p99 < 5 ms"), LoadAxis.VM_COUNT, LATENESS_MS,
                3_600_000L, 5, CLOSE_IDLE_MS);
        h = new KeyedTwoInputStreamOperatorTestHarness<>(new KeyedCoProcessOperator<>(new StepAnalyzer(settings)),
                e -> e.runId, StepInput::runId, Types.STRING);
        h.open();
    }

    @AfterEach
    void close() throws Exception {
        h.close();
    }

    private void step(int index, int vms) throws Exception {
        RunEvent s = TestData.runEvent(RunEvent.STEP_STARTED, RUN, index * STEP_MS, index);
        s.load = TestData.load(vms, 4);
        h.processElement1(new StreamRecord<>(s, s.tsMs));
    }

    private void endStep(int index) throws Exception {
        RunEvent e = TestData.runEvent(RunEvent.STEP_ENDED, RUN, (index + 1) * STEP_MS, index);
        h.processElement1(new StreamRecord<>(e, e.tsMs));
    }

    /** Second {@code sec} of step {@code index}: {@code n} I/Os (latencies around medianNs) = the IOPS. */
    private void second(int index, int sec, int n, long medianNs) throws Exception {
        long ts = index * STEP_MS + sec * 1000L;
        long[] lat = TestData.latencies(index * 1000L + sec, n, medianNs);
        h.processElement2(new StreamRecord<>(StepInput.of(TestData.fleetSecond(RUN, index, ts, lat, 4096, 4.0),
                fleetWatermark), ts + 999));
    }

    /** second() for each of the step's seconds {@code from} to {@code to - 1}, all alike. */
    private void seconds(int index, int from, int to, int n, long medianNs) throws Exception {
        for (int sec = from; sec < to; sec++) {
            second(index, sec, n, medianNs);
        }
    }

    private void watermark(long ts) throws Exception {
        h.processBothWatermarks(new Watermark(ts));
        if (!fleetLags) {
            fleetWatermark = ts;
        }
    }

    private List<StepRow> rows() {
        return h.extractOutputValues();
    }

    private ConcurrentLinkedQueue<StreamRecord<AlertRow>> alerts() {
        ConcurrentLinkedQueue<StreamRecord<AlertRow>> a = h.getSideOutput(StepAnalyzer.ALERTS);
        return a == null ? new ConcurrentLinkedQueue<>() : a;
    }

    @Test
    void emitsTheStepRowWhenTheWatermarkPassesTheStepEndNotBefore() throws Exception {
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            second(0, sec, sec < 2 ? 100 : 1000, 200_000);
        }
        endStep(0);
        watermark(STEP_MS - 1);
        assertThat(rows()).isEmpty();
        watermark(STEP_MS);
        assertThat(rows()).singleElement().satisfies(r -> {
            assertThat(r.stepIndex).isZero();
            assertThat(r.steadySeconds).isEqualTo(28);
            assertThat(r.steadyStartMs).isEqualTo(2_000);
            assertThat(r.iops).isCloseTo(1000, within(1e-9));
            assertThat(r.stepSamples).isEqualTo(30);
            assertThat(r.saturationStatus).isEqualTo("UNDETERMINED"); // first step
        });
        ConcurrentLinkedQueue<StreamRecord<UslFitRow>> usl = h.getSideOutput(StepAnalyzer.USL_FITS);
        assertThat(usl).singleElement().satisfies(u -> assertThat(u.getValue().fitted).isFalse());
    }

    @Test
    void theSteadyStateStaysInsideTheMeasuredWindowStepEndedDeclares() throws Exception {
        // A warm-up at full IOPS but 50x the latency (as fio's ramp_time or DISKSPD's -W may be): IOPS alone
        // show no ramp, the declared window [5 s, 30 s) excludes it (the 2 s configured ramp-up counts from there).
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            second(0, sec, 1000, sec < 5 ? 10_000_000 : 200_000);
        }
        RunEvent e = TestData.runEvent(RunEvent.STEP_ENDED, RUN, STEP_MS, 0);
        e.startMs = 5_000L;
        e.endMs = STEP_MS;
        h.processElement1(new StreamRecord<>(e, e.tsMs));
        watermark(STEP_MS);
        assertThat(rows()).singleElement().satisfies(r -> {
            assertThat(r.steadyStartMs).isEqualTo(7_000);
            assertThat(r.steadySeconds).isEqualTo(23);
            assertThat(r.stepStartMs).isZero();               // the step itself still starts at STEP_STARTED
            assertThat(r.stepSamples).isEqualTo(30);
            assertThat(r.latencyMeanNs).isLessThan(1_000_000); // none of the warm-up's 10 ms I/Os
        });
    }

    @Test
    void raisesLiveSaturationSecondsIntoTheSteadyStateAndTheFinalOneAtTheEnd() throws Exception {
        step(0, 1);
        seconds(0, 0, 30, 1000, 200_000);
        endStep(0);
        watermark(STEP_MS);
        step(1, 2); // double the VMs: +3 % IOPS, latency x2
        seconds(1, 0, 14, 1030, 400_000);
        watermark(STEP_MS + 14_000);
        assertThat(alerts()).isEmpty(); // 12 steady seconds: not yet evaluated (every 5 s from min-steady-s)
        second(1, 14, 1030, 400_000);
        assertThat(alerts()).isEmpty(); // judged once complete in every input: when the watermark passes its end
        watermark(STEP_MS + 14_999);
        assertThat(alerts()).singleElement().satisfies(a -> {
            AlertRow alert = a.getValue();
            assertThat(alert.phase).isEqualTo(AlertRow.LIVE);
            assertThat(alert.kind).isEqualTo(AlertRow.SATURATION);
            assertThat(alert.resource).isEqualTo("device");
            assertThat(alert.eventTsMs).isEqualTo(STEP_MS + 15_000);
            assertThat(alert.alertId).isEqualTo("r/1/saturation/live/device");
        });
        seconds(1, 15, 30, 1030, 400_000);
        assertThat(alerts()).hasSize(1); // raised once per step
        endStep(1);
        watermark(2 * STEP_MS);
        StepRow row = rows().get(1);
        assertThat(row.saturationStatus).isEqualTo("SATURATED");
        assertThat(row.saturationBottleneck).isEqualTo("DEVICE_KNEE");
        assertThat(row.throughputGainPct).isCloseTo(3, within(1e-9));
        assertThat(row.scalingEfficiencyPct).isCloseTo(51.5, within(1e-9));
        assertThat(alerts()).extracting(a -> a.getValue().phase).containsExactly(AlertRow.LIVE, AlertRow.FINAL);
    }

    /** Port {@code p} of host h1 carrying {@code pct} % of a 1 Gbps link (received) in second {@code sec} of a step. */
    private void portSecond(int index, int sec, double pct) throws Exception {
        long ts = index * STEP_MS + sec * 1000L;
        PortSample p = TestData.port(RUN, index, ts, "h1", "p", "NIC", 1_000_000_000L, (long) (125e6 * pct / 100), 0);
        p.capacityBytesPerS = 125e6;
        p.capacitySource = "link_speed";
        h.processElement2(new StreamRecord<>(StepInput.of(p), ts + 999));
    }

    /**
     * The fleet's rows of a second can reach the analyzer before that second's port samples, which come on another
     * stream. The live verdict must wait until the second is complete in every input (the watermark passes its
     * end), or it blames the device for a saturated port.
     */
    @Test
    void theLiveVerdictWaitsForTheSecondsPortEvidence() throws Exception {
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            second(0, sec, 1000, 200_000);
            portSecond(0, sec, 50);
        }
        endStep(0);
        watermark(STEP_MS);
        step(1, 2);
        seconds(1, 0, 15, 1030, 400_000); // the fleet's rows run ahead ...
        assertThat(alerts()).isEmpty();
        for (int sec = 0; sec < 15; sec++) { // ... of the port samples, at 97 % of the wire
            portSecond(1, sec, 97);
        }
        watermark(STEP_MS + 14_999);
        assertThat(alerts()).singleElement().satisfies(a -> {
            assertThat(a.getValue().phase).isEqualTo(AlertRow.LIVE);
            assertThat(a.getValue().resource).isEqualTo("port h1/p RX");
        });
    }

    /**
     * An iperf3-like second with no I/O samples: the client's port sent and the server's port received {@code pct} %
     * of a 1 Gbps link, 1 s per sample; a UDP test counts {@code frames} datagrams.
     */
    private void networkSecond(int index, int sec, double pct, long frames) throws Exception {
        long ts = index * STEP_MS + sec * 1000L;
        long bytes = (long) (125e6 * pct / 100);
        PortSample client = TestData.port(RUN, index, ts, "h1", "client", "NIC", 1_000_000_000L, 0, bytes);
        PortSample server = TestData.port(RUN, index, ts, "h2", "server", "NIC", 1_000_000_000L, bytes, 0);
        client.txFrames = frames;
        server.rxFrames = frames;
        for (PortSample p : List.of(client, server)) {
            p.capacityBytesPerS = 125e6;
            p.capacitySource = "link_speed";
            h.processElement2(new StreamRecord<>(StepInput.of(p), ts + 999));
        }
    }

    @Test
    void aRunWithoutIoSamplesIsMeasuredByItsPortsPayloadAndSaturatesAtTheLink() throws Exception {
        double[] pct = {40, 80, 97};
        for (int i = 0; i < 3; i++) {
            step(i, 1 << i); // 1, 2, 4 streams
            for (int sec = 0; sec < 30; sec++) {
                networkSecond(i, sec, pct[i], 1000);
            }
            endStep(i);
            watermark((i + 1) * STEP_MS);
        }
        List<StepRow> rows = rows();
        assertThat(rows).extracting(r -> r.stepIndex).containsExactly(0, 1, 2);
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.throughputBasis).isEqualTo(StepRow.PORT_BASIS);
            assertThat(r.steadySeconds).isEqualTo(28);   // the configured 2 s ramp-up left out
            assertThat(r.iops).isCloseTo(1000, within(1e-9)); // frames, counted once for the two ends
            assertThat(r.latencyCount).isZero();
            assertThat(r.stepSamples).isEqualTo(60);
        });
        // 40 % of 125 MB/s, counted once although both ends were recorded.
        assertThat(rows.get(0).mbPerS).isCloseTo(50, within(1e-9));
        assertThat(rows.get(0).bytes).isEqualTo(28 * 50_000_000L);
        assertThat(rows.get(1).saturationStatus).isEqualTo("SCALING");
        assertThat(rows.get(2).saturationStatus).isEqualTo("SATURATED");
        assertThat(rows.get(2).saturationBottleneck).isEqualTo("PORT");
        assertThat(rows.get(2).saturationEvidence).contains("MB/s +21.2%").contains("mean latency unknown");
        assertThat(rows.get(2).portMaxUtilizationPct).isCloseTo(97, within(1e-6));
        ConcurrentLinkedQueue<StreamRecord<UslFitRow>> usl = h.getSideOutput(StepAnalyzer.USL_FITS);
        assertThat(usl).allSatisfy(u -> assertThat(u.getValue().metric).isEqualTo("mb_per_s"));
        assertThat(alerts()).extracting(a -> a.getValue().phase).containsExactly(AlertRow.LIVE, AlertRow.FINAL);

        // Its steps close on the watermark once the run has ended (no fleet stream to wait for): a second within
        // the lateness re-evaluates the step, one after is ignored.
        networkSecond(2, 29, 50, 1000); // two samples, one row each: the last replaces the others
        assertThat(rows()).hasSize(5);
        assertThat(rows().get(4).stepSamples).isEqualTo(62);
        RunEvent end = TestData.runEvent(RunEvent.RUN_ENDED, RUN, 3 * STEP_MS, -1);
        h.processElement1(new StreamRecord<>(end, end.tsMs));
        watermark(3 * STEP_MS + LATENESS_MS);
        networkSecond(2, 28, 50, 1000);
        assertThat(rows()).hasSize(5);
    }

    /**
     * iperf3's own counts (tag tool) and the Linux collector's NIC counters on the same two hosts, in one run: the
     * hosts' counters see the same bytes plus headers (here 3 % more), and adding them to iperf3's would double the
     * step's throughput.
     */
    @Test
    void aLoadGeneratorsCountsAreTheStepsThroughputNotAddedToTheHostsNicCounters() throws Exception {
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            long ts = sec * 1000L;
            long bytes = 50_000_000L; // 40 % of 1 Gbps
            PortSample client = TestData.port(RUN, 0, ts, "h1", "vm/10.77.0.1", "NIC", 1_000_000_000L, 0, bytes);
            PortSample server = TestData.port(RUN, 0, ts, "h2", "vm/10.77.0.2", "NIC", 1_000_000_000L, bytes, 0);
            PortSample eth0 = TestData.port(RUN, 0, ts, "h1", "eth0", "NIC", 1_000_000_000L, 0, bytes * 103 / 100);
            PortSample eth1 = TestData.port(RUN, 0, ts, "h2", "eth1", "NIC", 1_000_000_000L, bytes * 103 / 100, 0);
            client.tool = "iperf3";
            server.tool = "iperf3";
            for (PortSample p : List.of(client, server, eth0, eth1)) {
                p.capacityBytesPerS = 125e6;
                h.processElement2(new StreamRecord<>(StepInput.of(p), ts + 999));
            }
        }
        endStep(0);
        RunEvent end = TestData.runEvent(RunEvent.RUN_ENDED, RUN, STEP_MS, -1);
        h.processElement1(new StreamRecord<>(end, end.tsMs));
        watermark(STEP_MS + LATENESS_MS);
        StepRow row = rows().get(rows().size() - 1);
        assertThat(row.throughputBasis).isEqualTo(StepRow.PORT_BASIS);
        assertThat(row.mbPerS).isCloseTo(50, within(1e-9)); // iperf3's payload, not 50 + 51.5
        assertThat(row.stepSamples).isEqualTo(60);           // the two iperf3 ends, 30 s
        assertThat(row.portMaxUtilizationPct).isCloseTo(41.2, within(1e-6)); // the link's load: all counters
    }

    /**
     * A run with I/O whose port samples come first (a replay reading the sources one after another): its steps are
     * judged from the ports until the first fleet second, then from the I/O, and the I/O row outranks the ports'.
     */
    @Test
    void theFirstFleetSecondReplacesStepsJudgedFromThePorts() throws Exception {
        fleetLags = true; // the fleet rollup is still behind: its rows carry its own, earlier watermark
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            networkSecond(0, sec, 40, 5000);
        }
        endStep(0);
        watermark(STEP_MS + LATENESS_MS); // the run has not ended: the step stays open
        StepRow fromPorts = rows().get(rows().size() - 1);
        assertThat(fromPorts.throughputBasis).isEqualTo(StepRow.PORT_BASIS);
        seconds(0, 0, 30, 1000, 200_000);
        StepRow fromIo = rows().get(rows().size() - 1);
        assertThat(fromIo.throughputBasis).isEqualTo(StepRow.IO_BASIS);
        assertThat(fromIo.iops).isCloseTo(1000, within(1e-9));
        assertThat(fromIo.stepSamples).isLessThan(fromPorts.stepSamples);
        assertThat(fromIo.version()).isGreaterThan(fromPorts.version());
    }

    /**
     * A broker that led the run-events partition dies: the samples of steps 1 and 2 keep flowing through the other
     * partitions, event time passes their ends and lateness (the events partition counts as idle), and their
     * STEP_STARTED/STEP_ENDED arrive after. The steps still get their rows.
     */
    @Test
    void stepEventsThatArriveAfterTheirStepsSecondsStillGiveTheStepsRows() throws Exception {
        step(0, 1);
        seconds(0, 0, 30, 1000, 200_000);
        endStep(0);
        watermark(STEP_MS);
        for (int i = 1; i <= 2; i++) {
            seconds(i, 0, 30, 1000 * (i + 1), 200_000);
            watermark((i + 1) * STEP_MS);
        }
        watermark(3 * STEP_MS + LATENESS_MS + 1);
        for (int i = 1; i <= 2; i++) { // the events partition is back
            step(i, 1 << i);
            endStep(i);
        }
        watermark(3 * STEP_MS + LATENESS_MS + 2);
        assertThat(rows().stream().map(r -> r.stepIndex).distinct().sorted().toList()).containsExactly(0, 1, 2);
        StepRow last = rows().stream().filter(r -> r.stepIndex == 2).reduce((a, b) -> b).orElseThrow();
        assertThat(last.iops).isCloseTo(3000, within(1e-9));
        assertThat(last.vmCount).isEqualTo(4);
    }

    @Test
    void aLateSecondWithinTheLatenessReplacesTheRowAndLaterOnesAreIgnored() throws Exception {
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            if (sec != 10) {
                second(0, sec, 1000, 200_000);
            }
        }
        endStep(0);
        watermark(STEP_MS);
        StepRow first = rows().get(0);
        assertThat(first.steadySeconds).isEqualTo(27);
        second(0, 10, 1000, 200_000); // late, the step's lateness (5 s) has not passed
        assertThat(rows()).hasSize(2);
        StepRow second = rows().get(1);
        assertThat(second.steadySeconds).isEqualTo(28);
        assertThat(second.version()).isGreaterThan(first.version());
        watermark(STEP_MS + 5_000); // the step closes: its seconds are dropped
        second(0, 11, 5000, 200_000);
        assertThat(rows()).hasSize(2);
    }

    @Test
    void aStepStaysOpenWhileTheFleetStreamLagsTheOtherInputs() throws Exception {
        // A replay after a restart: the run events and the CPU/port streams are already past step 0's end +
        // lateness (5 s), the fleet stream is still at second 4. Its seconds 5..29 must still count.
        step(0, 1);
        seconds(0, 0, 5, 1000, 200_000);
        endStep(0);
        fleetLags = true;
        fleetWatermark = 4_999;
        watermark(STEP_MS + 5_000 + 3_000);
        assertThat(rows()).singleElement().satisfies(r -> assertThat(r.stepSamples).isEqualTo(5));
        for (int sec = 5; sec < 30; sec++) {
            fleetWatermark = sec * 1000L - 1; // a fired row carries the watermark before the one that fired it
            second(0, sec, 1000, 200_000);
        }
        StepRow last = rows().get(rows().size() - 1);
        assertThat(last.stepSamples).isEqualTo(30);
        assertThat(last.steadySeconds).isEqualTo(28);
        assertThat(last.iops).isCloseTo(1000, within(1e-9));
        // Once the fleet stream is past the step's end + lateness, the step closes: a straggler is ignored.
        fleetWatermark = STEP_MS + 5_000 - 1;
        step(1, 1);
        second(1, 0, 1000, 200_000);
        int emitted = rows().size();
        second(0, 12, 9000, 200_000);
        assertThat(rows()).hasSize(emitted);
    }

    @Test
    void sloBreachesAreRaisedOnTheStepsMergedHistogram() throws Exception {
        step(0, 1);
        seconds(0, 0, 30, 1000, 4_000_000); // p99 ~ 10 ms > 5 ms
        endStep(0);
        watermark(STEP_MS);
        assertThat(alerts()).extracting(a -> a.getValue().kind + "/" + a.getValue().phase)
                .contains("slo_breach/live", "slo_breach/final");
        AlertRow fin = alerts().stream().map(StreamRecord::getValue).filter(a -> a.phase.equals(AlertRow.FINAL))
                .findFirst().orElseThrow();
        assertThat(fin.resource).isEqualTo("latency p99 < 5 ms");
        assertThat(fin.value).isGreaterThan(5e6);
        assertThat(fin.threshold).isEqualTo(5e6);
    }

    @Test
    void runStateIsClearedAfterTheRunEnds() throws Exception {
        step(0, 1);
        seconds(0, 0, 30, 1000, 200_000);
        endStep(0);
        RunEvent ended = TestData.runEvent(RunEvent.RUN_ENDED, RUN, STEP_MS, -1);
        h.processElement1(new StreamRecord<>(ended, ended.tsMs));
        watermark(STEP_MS);
        assertThat(h.numKeyedStateEntries()).isPositive();
        watermark(STEP_MS + 5_000 + StepAnalyzer.RUN_CLEANUP_DELAY_MS);
        assertThat(h.numKeyedStateEntries()).isZero();
    }

    // ------------------------------------------------------------------------------------------- quiet topics

    /**
     * A live run of two steps as the job sees it: second {@code sec} of a step arrives (its early row) at wall
     * clock end of second + 250 ms, and the watermark trails the newest second by the out-of-orderness. Then the
     * run ends and the topics go quiet: the watermark stays short of step 1's end. {@code delivered} of step 1's
     * 30 seconds are sent.
     */
    private void liveRunThenQuiet(int delivered) throws Exception {
        at(0);
        step(0, 1);
        for (int sec = 0; sec < 30; sec++) {
            liveSecond(0, sec, 1000, 200_000);
        }
        endStep(0);
        step(1, 2);
        for (int sec = 0; sec < delivered; sec++) {
            liveSecond(1, sec, 1030, 400_000); // double the VMs: +3 % IOPS, latency x2
        }
        at(2 * STEP_MS + 100);
        endStep(1);
        RunEvent ended = TestData.runEvent(RunEvent.RUN_ENDED, RUN, 2 * STEP_MS, -1);
        h.processElement1(new StreamRecord<>(ended, ended.tsMs));
    }

    private void liveSecond(int index, int sec, int iops, long medianNs) throws Exception {
        long end = index * STEP_MS + (sec + 1) * 1000L;
        at(Math.max(h.getProcessingTime(), end + 250));
        second(index, sec, iops, medianNs);
        watermark(end - 1 - OUT_OF_ORDERNESS_MS);
    }

    /** Sets the wall clock (processing time), firing the processing-time timers due by then. */
    private void at(long wallMs) throws Exception {
        h.setProcessingTime(wallMs);
    }

    private List<StepRow> rowsOf(int step) {
        return rows().stream().filter(r -> r.stepIndex == step).toList();
    }

    @Test
    void theLastStepIsFinalizedOnTheWallClockOnceTheRunsSecondsStopWithoutNewerData() throws Exception {
        liveRunThenQuiet(30);
        long lastArrival = 2 * STEP_MS + 250;
        assertThat(rowsOf(0)).hasSize(1);
        at(lastArrival + CLOSE_IDLE_MS - 1);
        assertThat(rowsOf(1)).isEmpty(); // not before the run's fleet seconds have stopped for the idle time
        at(lastArrival + CLOSE_IDLE_MS); // well within the lateness + a few seconds of RUN_ENDED
        assertThat(rowsOf(1)).singleElement().satisfies(r -> {
            assertThat(r.stepSamples).isEqualTo(30); // every second, the last two (above the watermark) included
            assertThat(r.steadySeconds).isEqualTo(28);
            assertThat(r.iops).isCloseTo(1030, within(1e-9));
            assertThat(r.saturationStatus).isEqualTo("SATURATED"); // judged against step 0, as in event time
        });
        assertThat(h.<UslFitRow>getSideOutput(StepAnalyzer.USL_FITS)).extracting(u -> u.getValue().throughStep)
                .containsExactly(0, 1);

        // The final rows of the last seconds, equal to the early rows the step was finalized with: nothing new.
        fleetWatermark = 2 * STEP_MS;
        second(1, 28, 1030, 400_000);
        second(1, 29, 1030, 400_000);
        assertThat(rowsOf(1)).hasSize(1);
        // A straggler still counts (its second fired again with 2 samples): the step keeps its seconds until
        // event time closes it.
        FleetRollupRow refired = TestData.fleetSecond(RUN, 1, STEP_MS + 10_000, TestData.latencies(1010, 1033,
                400_000), 4096, 4.0);
        refired.stats.samples = 2;
        h.processElement2(new StreamRecord<>(StepInput.of(refired, fleetWatermark), STEP_MS + 10_999));
        assertThat(rowsOf(1)).hasSize(2);
        assertThat(rowsOf(1).get(1).stepSamples).isEqualTo(31);
        watermark(2 * STEP_MS + LATENESS_MS);
        second(1, 12, 9000, 400_000);
        assertThat(rowsOf(1)).hasSize(2); // closed now
    }

    @Test
    void secondsThatKeepArrivingAfterTheRunEndedHoldTheStepOpenUntilTheyStop() throws Exception {
        // A collector that buffered: step 1's last 5 seconds arrive after RUN_ENDED, 2 s apart (wall clock).
        liveRunThenQuiet(25);
        long arrival = 2 * STEP_MS + 100;
        for (int sec = 25; sec < 30; sec++) {
            arrival += 2_000;
            at(arrival);
            assertThat(rowsOf(1)).as("before second %d", sec).isEmpty();
            second(1, sec, 1030, 400_000); // the watermark stays where it was: the topics are quiet
        }
        at(arrival + CLOSE_IDLE_MS - 1);
        assertThat(rowsOf(1)).isEmpty();
        at(arrival + CLOSE_IDLE_MS);
        assertThat(rowsOf(1)).singleElement().satisfies(r -> assertThat(r.stepSamples).isEqualTo(30));
    }

    @Test
    void aStepIsNotFinalizedOnTheWallClockBeforeTheWallClockIsPastItsEnd() throws Exception {
        // A run stamped ahead of the wall clock (the simulator's fast mode): its seconds all arrived at once.
        at(0);
        step(0, 1);
        seconds(0, 0, 30, 1000, 200_000);
        endStep(0);
        at(CLOSE_IDLE_MS);
        assertThat(rows()).isEmpty(); // quiet, but step 0 ends in 30 s
        at(STEP_MS + CLOSE_IDLE_MS - 1);
        assertThat(rows()).isEmpty();
        at(STEP_MS + CLOSE_IDLE_MS);
        assertThat(rows()).singleElement().satisfies(r -> assertThat(r.stepSamples).isEqualTo(30));
    }
}
