package io.ioscale.sources;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.PortSample;
import io.ioscale.records.RunEvent;
import io.ioscale.testing.TestData;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class AttachLinkCapacityTest {

    @Test
    void declaredPayloadBeatsDeclaredSpeedBeatsTheSamplesSpeed() throws Exception {
        var h = new KeyedTwoInputStreamOperatorTestHarness<String, PortSample, RunEvent, PortSample>(
                new KeyedCoProcessOperator<>(new AttachLinkCapacity()), p -> p.runId, e -> e.runId, Types.STRING);
        h.open();
        // Before the run's links are known: the sample's own 10 GbE speed.
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 0, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 0));
        RunEvent started = TestData.runEvent(RunEvent.RUN_STARTED, "r", 0, -1);
        RunEvent.LinkCapacity half = TestData.link("h", "eth0", "NIC", 1_000_000_000L, 0);
        half.fullDuplex = false;
        started.links = List.of(TestData.link("h", "fc0", "FC_HBA", 8_500_000_000L, 780_000_000L), half);
        h.processElement2(new StreamRecord<>(started, 0));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 1, "h", "fc0", "FC_HBA", 0, 1, 1), 1));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 2, "h", "eth0", "NIC", 10_000_000_000L, 1, 1), 2));
        h.processElement1(new StreamRecord<>(TestData.port("r", 0, 3, "h", "sas0", "SAS", 0, 1, 1), 3));
        List<PortSample> out = h.extractOutputValues();
        assertThat(out.get(0).capacityBytesPerS).isEqualTo(10e9 / 8 * 1460 / 1538);
        assertThat(out.get(0).capacitySource).isEqualTo(LinkCapacityRule.FROM_LINK_SPEED);
        assertThat(out.get(1).capacityBytesPerS).isEqualTo(780e6);
        assertThat(out.get(1).capacitySource).isEqualTo(LinkCapacityRule.FROM_RUN_EVENT);
        assertThat(out.get(1).linkSpeedBps).isEqualTo(8_500_000_000L);
        assertThat(out.get(2).capacityBytesPerS).isEqualTo(1e9 / 8 * 1460 / 1538); // declared speed wins
        assertThat(out.get(2).fullDuplex).isFalse();
        assertThat(out.get(3).capacityBytesPerS).isZero();
        assertThat(out.get(3).capacitySource).isEqualTo(LinkCapacityRule.UNKNOWN);
        h.close();
    }
}
