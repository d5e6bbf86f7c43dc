package io.ioscale.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.IoSample;
import io.ioscale.rollups.IoAccumulator.SourceId;
import io.ioscale.testing.TestData;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple6;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;

/**
 * The per-source operator's fleet partials: emitted before the watermark that completes their second, flushed
 * before a checkpoint barrier, and adding up (through the fleet rollup) to the merge of every sample.
 */
@SuppressWarnings("try") // the harnesses are AutoCloseable; their close() may throw InterruptedException
class IoSourceRollupOperatorTest {

    private static final OutputTag<IoSample> LATE = new OutputTag<>("late", TypeInformation.of(IoSample.class));

    private static KeyedOneInputStreamOperatorTestHarness<Tuple6<String, Integer, String, String, String, String>,
            IoSample, IoRollupRow> harness() throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(new IoSourceRollupOperator(Grain.values(), 5_000, LATE),
                new IoSourceRollup.Key(), TypeInformation.of(new TypeHint<>() {}));
    }

    private static IoSample sample(long ts, String vm, String direction, long seed) {
        return TestData.io("run", 0, ts, "h", vm, "t", direction, TestData.latencies(seed, 300, 100_000), 4096, 2.0);
    }

    private static List<FleetPartial> partials(KeyedOneInputStreamOperatorTestHarness<?, IoSample, IoRollupRow> h) {
        var out = h.getSideOutput(IoSourceRollupOperator.FLEET_PARTIALS);
        return out == null ? List.of() : out.stream().map(StreamRecord::getValue).toList();
    }

    @Test
    void aSecondsPartialGoesOutBeforeTheWatermarkThatEndsIt() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(sample(1_000, "vm1", "READ", 1), 1_000);
            h.processElement(sample(1_000, "vm1", "WRITE", 2), 1_000);
            h.processElement(sample(1_000, "vm2", "READ", 3), 1_000);
            h.processElement(sample(2_000, "vm1", "READ", 4), 2_000);
            h.processWatermark(1_998);
            assertThat(partials(h)).isEmpty();
            h.processWatermark(1_999); // (that it precedes the watermark downstream: AnalyticsJobITCase's fleet oracle)
            assertThat(partials(h)).singleElement().satisfies(p -> {
                assertThat(p.secondStartMs).isEqualTo(1_000);
                assertThat(p.samples()).isEqualTo(3);
                assertThat(p.acc.sources).containsExactlyInAnyOrder(new SourceId("h", "vm1", "t"),
                        new SourceId("h", "vm2", "t"));
                assertThat(p.acc.ops).isEqualTo(900);
            });
        }
    }

    @Test
    void everythingOpenIsFlushedBeforeACheckpointAndLateSamplesStartANewPartial() throws Exception {
        try (var h = harness()) {
            h.open();
            h.processElement(sample(1_000, "vm1", "READ", 1), 1_000);
            h.prepareSnapshotPreBarrier(1);
            assertThat(partials(h)).hasSize(1);
            h.processElement(sample(1_000, "vm2", "READ", 2), 1_000); // same second, after the barrier
            h.processWatermark(2_999);
            h.processElement(sample(1_500, "vm3", "READ", 3), 1_500); // late for its second: a new partial
            h.processWatermark(3_000);
            assertThat(partials(h)).extracting(p -> p.secondStartMs).containsExactly(1_000L, 1_000L, 1_000L);
            assertThat(partials(h)).extracting(FleetPartial::samples).containsExactly(1L, 1L, 1L);
        }
    }

    @Test
    void aFiredWindowPackedForItsLatenessTakesLateSamplesExactly() throws Exception {
        List<IoSample> in = new ArrayList<>();
        for (long ts = 0; ts < 12_000; ts += 1_000) {
            in.add(sample(ts, "vm1", "READ", ts / 1_000));
        }
        IoSample late = sample(3_000, "vm1", "READ", 99);
        try (var h = harness()) {
            h.open();
            for (IoSample s : in) {
                h.processElement(s, s.tsMs);
            }
            h.processWatermark(10_999); // [0, 10 s) fired: its accumulator is packed and kept 5 s for late data
            h.processElement(late, late.tsMs); // too late for its second, in time for 10 s and the minute
            h.processWatermark(Long.MAX_VALUE);
            List<IoRollupRow> rows = h.extractOutputValues();
            IoAccumulator first10 = new IoAccumulator();
            in.stream().filter(s -> s.tsMs < 10_000).forEach(first10::add);
            first10.add(late);
            List<IoRollupRow> tenS = rows.stream().filter(r -> r.grain == Grain.S10 && r.windowStartMs == 0).toList();
            assertThat(tenS).hasSize(2); // fired, then again with the late sample
            assertThat(tenS.get(1).stats.samples).isEqualTo(11);
            assertThat(tenS.get(1).stats.buckets()).isEqualTo(first10.histogram().toSparse());
            IoAccumulator all = new IoAccumulator();
            in.forEach(all::add);
            all.add(late);
            assertThat(rows.stream().filter(r -> r.grain == Grain.M1)).singleElement()
                    .satisfies(r -> assertThat(r.stats.buckets()).isEqualTo(all.histogram().toSparse()));
        }
    }

    @Test
    void theFleetRollupOfThePartialsIsTheMergeOfEverySample() throws Exception {
        List<IoSample> in = new ArrayList<>();
        long seed = 0;
        for (long ts = 0; ts < 12_000; ts += 1_000) {
            for (String vm : List.of("vm1", "vm2", "vm3")) {
                for (String dir : List.of("READ", "WRITE")) {
                    in.add(sample(ts, vm, dir, seed++));
                }
            }
        }
        List<FleetPartial> parts = new ArrayList<>();
        try (var h = harness()) {
            h.open();
            for (IoSample s : in) {
                h.processElement(s, s.tsMs);
                if (s.tsMs == 4_000) {
                    h.prepareSnapshotPreBarrier(7); // splits second 4 into two partials
                }
            }
            h.processWatermark(Long.MAX_VALUE);
            parts.addAll(partials(h));
        }
        try (var fleet = new KeyedOneInputStreamOperatorTestHarness<>(
                new GrainRollupOperator<>(new IoFleetRollup(), Grain.values(), 5_000, null), new IoFleetRollup.Key(),
                TypeInformation.of(new TypeHint<Tuple2<String, Integer>>() {}))) {
            fleet.open();
            for (FleetPartial p : parts) {
                fleet.processElement(p, p.secondStartMs);
            }
            fleet.processWatermark(Long.MAX_VALUE);
            List<FleetRollupRow> rows = fleet.extractOutputValues();
            FleetRollupRow tenS = rows.stream().filter(r -> r.grain == Grain.S10 && r.windowStartMs == 0).findFirst()
                    .orElseThrow();
            IoAccumulator all = IoAccumulator.forFleet();
            in.stream().filter(s -> s.tsMs < 10_000).forEach(all::add);
            LatencyHistogram merged = all.histogram();
            assertThat(tenS.stats.buckets()).isEqualTo(merged.toSparse());
            assertThat(tenS.stats.samples).isEqualTo(60);
            assertThat(tenS.sources).isEqualTo(3);
            assertThat(tenS.stats.ops).isEqualTo(all.ops);
            assertThat(rows.stream().filter(r -> r.grain == Grain.S1).map(r -> r.windowStartMs).distinct().count())
                    .isEqualTo(12);
            assertThat(rows.stream().filter(r -> r.grain == Grain.M1)).singleElement()
                    .satisfies(r -> assertThat(r.stats.samples).isEqualTo(in.size()));
            assertThat(Set.copyOf(rows.stream().filter(r -> r.grain == Grain.S1).map(r -> r.stats.samples).toList()))
                    .containsExactly(6L);
        }
    }
}
