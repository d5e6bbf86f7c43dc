package io.ioscale.steps;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.FleetRollupRow;
import io.ioscale.testing.TestData;
import java.util.List;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class StampFleetProgressTest {
    @Test
    void eachFleetRowCarriesTheWatermarkThatPassedBeforeIt() throws Exception {
        try (var h = new OneInputStreamOperatorTestHarness<FleetRollupRow, StepInput>(
                new ProcessOperator<>(new StampFleetProgress()))) {
            h.open();
            FleetRollupRow row = TestData.fleetSecond("r", 0, 1_000, new long[] {1_000}, 4096, 1.0);
            h.processElement(new StreamRecord<>(row, 1_999)); // before any watermark
            h.processWatermark(new Watermark(1_999));
            h.processElement(new StreamRecord<>(row, 2_999));
            h.processWatermark(new Watermark(7_999));
            h.processElement(new StreamRecord<>(row, 1_999)); // a late re-fired second
            List<StepInput> out = h.extractOutputValues();
            assertThat(out).extracting(in -> in.fleetWatermarkMs).containsExactly(Long.MIN_VALUE, 1_999L, 7_999L);
            assertThat(out).allSatisfy(in -> assertThat(in.fleet.windowStartMs).isEqualTo(1_000));
        }
    }
}
