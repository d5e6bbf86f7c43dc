package io.ioscale.sources;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.testing.TestData;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class AttachLinkCapacityTest {

    private static KeyedTwoInputStreamOperatorTestHarness<String, PortSample, RunEvent, PortSample> harness()
            throws Exception {
        var h = new KeyedTwoInputStreamOperatorTestHarness<String, PortSample, RunEvent, PortSample>(
                new KeyedCoProcessOperator<>(new AttachLinkCapacity()), p -> p.runId, e -> e.runId, Types.STRING);
        h.open();
        return h;
    }

    @Test
    void declaredPayloadBeatsDeclaredSpeedBeatsTheSamplesSpeed() throws Exception {
        var h = harness();
        // Before the run's links are known: the sample waits for them (a half-duplex 1 GbE port, though the
        // sample says 10 GbE).
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 0, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 0));
        assertThat(h.extractOutputValues()).isEmpty();
        RunEvent started = TestData.runEvent(RunEvent.RUN_STARTED, "r", 0, -1);
        RunEvent.LinkCapacity half = TestData.link("h", "eth0", "NIC", 1_000_000_000L, 0);
        half.fullDuplex = false;
        started.links = List.of(TestData.link("h", "fc0", "FC_HBA", 8_500_000_000L, 780_000_000L), half);
        h.processElement2(new StreamRecord<>(started, 0));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 1, "h", "fc0", "FC_HBA", 0, 1, 1), 1));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 2, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 2));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 3, "h", "sas0", "SAS", 0, 1, 1), 3));
        List<PortSample> out = h.extractOutputValues();
        assertThat(out).extracting(p -> p.tsMs).containsExactly(0L, 1L, 2L, 3L);
        assertThat(out.get(0).capacityBytesPerS).isEqualTo(1e9 / 8 * 1460 / 1538);
        assertThat(out.get(0).capacitySource).isEqualTo(LinkCapacityRule.FROM_RUN_EVENT);
        assertThat(out.get(0).fullDuplex).isFalse();
        assertThat(out.get(1).capacityBytesPerS).isEqualTo(780e6);
        assertThat(out.get(1).capacitySource).isEqualTo(LinkCapacityRule.FROM_RUN_EVENT);
        assertThat(out.get(1).linkSpeedBps).isEqualTo(8_500_000_000L);
        assertThat(out.get(2).capacityBytesPerS).isEqualTo(1e9 / 8 * 1460 / 1538); // declared speed wins
        assertThat(out.get(2).fullDuplex).isFalse();
        assertThat(out.get(3).capacityBytesPerS).isZero();
        assertThat(out.get(3).capacitySource).isEqualTo(LinkCapacityRule.UNKNOWN);
        h.close();
    }

    @Test
    void aRunWithoutLinksWaitsOnceThenFallsBackToTheSamplesSpeed() throws Exception {
        var h = harness();
        h.setProcessingTime(1_000);
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 0, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 0));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 1, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 1));
        h.setProcessingTime(1_000 + AttachLinkCapacity.HOLD_MS - 1);
        assertThat(h.extractOutputValues()).isEmpty();
        h.setProcessingTime(1_000 + AttachLinkCapacity.HOLD_MS);
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 2, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 2));
        List<PortSample> out = h.extractOutputValues();
        assertThat(out).extracting(p -> p.tsMs).containsExactly(0L, 1L, 2L); // the third not held: the run waited
        assertThat(out).allSatisfy(p -> {
            assertThat(p.capacitySource).isEqualTo(LinkCapacityRule.FROM_LINK_SPEED);
            assertThat(p.capacityBytesPerS).isEqualTo(10e9 / 8 * 1460 / 1538);
        });
        // Links that come later still apply to what follows.
        RunEvent step = TestData.runEvent(RunEvent.STEP_STARTED, "r", 3, 1);
        step.links = List.of(TestData.link("h", "eth0", "NIC", 25_000_000_000L, 0));
        h.processElement2(new StreamRecord<>(step, 3));
        h.processElement1(new StreamRecord<>(TestData.port("r", 1, 4, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 4));
        assertThat(h.extractOutputValues().get(3).capacitySource).isEqualTo(LinkCapacityRule.FROM_RUN_EVENT);
        h.close();
    }

    @Test
    void theWatermarkReachingAWaitingSampleReleasesItBeforeItIsLate() throws Exception {
        var h = harness();
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 5_000, "h", "eth0", "NIC", 1_000_000_000L, 1, 1),
                5_000));
        h.processBothWatermarks(new Watermark(4_999));
        assertThat(h.extractOutputValues()).isEmpty();
        h.processBothWatermarks(new Watermark(5_000));
        assertThat(h.getOutput()).extracting(o -> o instanceof Watermark ? "watermark " + ((Watermark) o).getTimestamp()
                : "sample " + ((StreamRecord<?>) o).getValue().toString().contains("eth0"))
                .containsExactly("watermark 4999", "sample true", "watermark 5000"); // the sample before its watermark
        h.close();
    }

    @Test
    void theRunsEndReleasesWhatWaitsAtOnce() throws Exception {
        var h = harness();
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 0, "h", "eth0", "NIC", 1_000_000_000L, 1, 1), 0));
        h.processElement2(new StreamRecord<>(TestData.runEvent(RunEvent.RUN_ENDED, "r", 5, -1), 5));
        assertThat(h.extractOutputValues()).extracting(p -> p.capacitySource)
                .containsExactly(LinkCapacityRule.FROM_LINK_SPEED);
        assertThat(h.numKeyedStateEntries()).isEqualTo(2); // hold-until (no second wait) and cleanup-at
        h.processBothWatermarks(new Watermark(5 + AttachLinkCapacity.KEEP_AFTER_RUN_MS));
        assertThat(h.numKeyedStateEntries()).isZero();
        h.close();
    }

    @Test
    void aSampleWaitingAtACheckpointIsReleasedAfterTheRestore() throws Exception {
        var h = harness();
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 0, "h", "fc0", "FC_HBA", 8_500_000_000L, 1, 1), 0));
        var snapshot = h.snapshot(1, 1);
        h.close();
        var restored = new KeyedTwoInputStreamOperatorTestHarness<String, PortSample, RunEvent, PortSample>(
                new KeyedCoProcessOperator<>(new AttachLinkCapacity()), p -> p.runId, e -> e.runId, Types.STRING);
        restored.initializeState(snapshot);
        restored.open();
        RunEvent started = TestData.runEvent(RunEvent.RUN_STARTED, "r", 0, -1);
        started.links = List.of(TestData.link("h", "fc0", "FC_HBA", 8_500_000_000L, 780_000_000L));
        restored.processElement2(new StreamRecord<>(started, 0));
        assertThat(restored.extractOutputValues()).extracting(p -> p.capacityBytesPerS).containsExactly(780e6);
        restored.close();
    }
}
