package io.ioscale.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.FleetRollupRow;
import io.ioscale.records.Grain;
import io.ioscale.records.IoRollupRow;
import io.ioscale.records.IoSample;
import io.ioscale.rollups.GrainRollupOperatorTest.Rec;
import io.ioscale.rollups.GrainRollupOperatorTest.Row;
import io.ioscale.rollups.GrainRollupOperatorTest.SumRollup;
import io.ioscale.testing.TestData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Early firing: provisional rows on the wall clock before the watermark closes a window, for the freshness of live
 * runs. They come at the window's end plus the delay (or a settle time after a later record), only for the grains
 * that take records directly, and change neither the final rows nor what is late: the newest row of every window
 * is the one firing on the watermark alone would have made.
 */
@SuppressWarnings("try") // the harnesses are AutoCloseable; their close() may throw InterruptedException
class EarlyFiringTest {

    private static final OutputTag<Rec> LATE = new OutputTag<>("late", TypeInformation.of(Rec.class));
    private static final long DELAY_MS = 200;

    /** An opened harness of the sum rollup over every grain, its wall clock at 0. */
    private static KeyedOneInputStreamOperatorTestHarness<String, Rec, Row> harness(long latenessMs, int directGrains,
                                                                                   EarlyFiring early) throws Exception {
        var h = new KeyedOneInputStreamOperatorTestHarness<>(
                new GrainRollupOperator<>(new SumRollup(), Grain.values(), directGrains, latenessMs, LATE)
                        .earlyFiring(early),
                r -> r.key, TypeInformation.of(String.class));
        h.setProcessingTime(0);
        h.open();
        return h;
    }

    private static EarlyFiring early(boolean skipUnchangedFinal) {
        return EarlyFiring.after(Duration.ofMillis(DELAY_MS), skipUnchangedFinal);
    }

    /** Key a's records of {@code v}, one a second from 0 to {@code endMs}, each sent just after its second ends. */
    private static void liveSeconds(KeyedOneInputStreamOperatorTestHarness<String, Rec, Row> h, long endMs, long v)
            throws Exception {
        for (long t = 0; t < endMs; t += 1_000) {
            h.setProcessingTime(t + 1_010);
            h.processElement(new Rec("a", t, v), t);
        }
    }

    /** The coarser windows 70 records of 1 a second fill and close: 10 s windows to 60 s, the first minute. */
    private static final Row[] SEVENTY_SECONDS_CLOSED = {
            new Row("a", Grain.S10, 0, 10, 10, 1), new Row("a", Grain.S10, 10_000, 10, 10, 1),
            new Row("a", Grain.S10, 20_000, 10, 10, 1), new Row("a", Grain.S10, 30_000, 10, 10, 1),
            new Row("a", Grain.S10, 40_000, 10, 10, 1), new Row("a", Grain.M1, 0, 60, 60, 1),
            new Row("a", Grain.S10, 50_000, 10, 10, 1)};

    @Test
    void aWindowShowsItsRowTheDelayAfterItEndsAndTheUnchangedFinalRowIsSkipped() throws Exception {
        try (var h = harness(5_000, 1, early(true))) {
            h.setProcessingTime(1_020); // a collector sends its sample just after the second ends
            h.processElement(new Rec("a", 0, 7), 0);
            h.processElement(new Rec("b", 0, 1), 0);
            h.setProcessingTime(1_199);
            assertThat(h.extractOutputValues()).isEmpty();
            h.setProcessingTime(1_200); // end + delay: both keys' 1 s rows, long before any watermark
            assertThat(h.extractOutputValues()).containsExactlyInAnyOrder(new Row("a", Grain.S1, 0, 1, 7, 7),
                    new Row("b", Grain.S1, 0, 1, 1, 1));
            h.processWatermark(999); // the watermark closes the second: nothing new to say
            assertThat(h.extractOutputValues()).hasSize(2);
            h.setProcessingTime(9_999); // 10 s and 1 min windows are filled by roll-up: not before they end
            assertThat(h.extractOutputValues()).hasSize(2);
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).contains(new Row("a", Grain.S10, 0, 1, 7, 7),
                    new Row("a", Grain.M1, 0, 1, 7, 7)).hasSize(6);
        }
    }

    @Test
    void aRecordAfterTheProvisionalRowIsShownAfterTheSettleTimeAndInTheFinalRow() throws Exception {
        try (var h = harness(5_000, 1, early(true))) {
            h.setProcessingTime(1_050);
            h.processElement(new Rec("a", 100, 2), 100);
            h.setProcessingTime(1_300);
            assertThat(h.extractOutputValues()).containsExactly(new Row("a", Grain.S1, 0, 1, 2, 2));
            h.processElement(new Rec("a", 900, 5), 900); // a straggler of the same second, still on time
            h.setProcessingTime(1_300 + EarlyFiring.DEFAULT_SETTLE_MS - 1);
            assertThat(h.extractOutputValues()).hasSize(1);
            h.setProcessingTime(1_300 + EarlyFiring.DEFAULT_SETTLE_MS);
            assertThat(h.extractOutputValues()).last().isEqualTo(new Row("a", Grain.S1, 0, 2, 7, 5));
            h.processElement(new Rec("a", 950, 1), 950); // and one more, with no wall-clock time passing
            h.processWatermark(999); // the final row: it holds the record no provisional row showed
            assertThat(h.extractOutputValues()).hasSize(3).last().isEqualTo(new Row("a", Grain.S1, 0, 3, 8, 5));
        }
    }

    @Test
    void withoutSkippingEveryFinalRowIsEmittedAndAdirectTenSecondWindowIsShownToo() throws Exception {
        try (var h = harness(5_000, 2, early(false))) {
            liveSeconds(h, 10_000, 1);
            h.setProcessingTime(10_000 + DELAY_MS);
            List<Row> early = h.extractOutputValues();
            assertThat(early).filteredOn(r -> r.grain() == Grain.S1).hasSize(10);
            assertThat(early).filteredOn(r -> r.grain() == Grain.S10)
                    .containsExactly(new Row("a", Grain.S10, 0, 10, 10, 1));
            h.processWatermark(9_999); // final rows again: the step analyzer takes every final second
            assertThat(h.extractOutputValues()).hasSize(early.size() + 10 + 1);
        }
    }

    @Test
    void coarserWindowsTheWatermarkLeavesOpenAreShownAndTheirFinalRowsStillFollow() throws Exception {
        // The end of a run: five samples, then nothing; the watermark stays where it was.
        try (var h = harness(5_000, 1, early(true))) {
            liveSeconds(h, 5_000, 2);
            h.setProcessingTime(10_000 + EarlyFiring.QUIET_MS - 1);
            assertThat(h.extractOutputValues()).hasSize(5).allMatch(r -> r.grain() == Grain.S1);
            h.setProcessingTime(10_000 + EarlyFiring.QUIET_MS);
            assertThat(h.extractOutputValues()).hasSize(6).last().isEqualTo(new Row("a", Grain.S10, 0, 5, 10, 2));
            h.setProcessingTime(60_000 + EarlyFiring.QUIET_MS);
            assertThat(h.extractOutputValues()).hasSize(7).last().isEqualTo(new Row("a", Grain.M1, 0, 5, 10, 2));
            h.setProcessingTime(200_000); // shown once
            assertThat(h.extractOutputValues()).hasSize(7);
            h.processWatermark(Long.MAX_VALUE); // the 1 s rows were shown unchanged; the coarser ones follow
            assertThat(h.extractOutputValues()).hasSize(9).endsWith(new Row("a", Grain.S10, 0, 5, 10, 2),
                    new Row("a", Grain.M1, 0, 5, 10, 2));
        }
    }

    @Test
    void aCoarserWindowWhoseFinerWindowsFiredIsShownWhenItsKeyIsQuiet() throws Exception {
        // A step's key: its seconds fired as the next step's data moved the watermark, then the key went quiet
        // with its minute still open.
        try (var h = harness(5_000, 1, early(true))) {
            h.setProcessingTime(1_010);
            h.processElement(new Rec("a", 0, 4), 0);
            h.processWatermark(15_000); // the 1 s and 10 s windows fire; the minute holds the record
            assertThat(h.extractOutputValues()).extracting(Row::grain).containsExactly(Grain.S1, Grain.S10);
            h.setProcessingTime(60_000 + EarlyFiring.QUIET_MS);
            assertThat(h.extractOutputValues()).hasSize(3).last().isEqualTo(new Row("a", Grain.M1, 0, 1, 4, 4));
        }
    }

    @Test
    void aLiveStreamsWatermarkClosesTheCoarserWindowsBeforeTheyAreShown() throws Exception {
        try (var h = harness(5_000, 1, early(true))) {
            for (long t = 0; t < 70_000; t += 1_000) {
                h.setProcessingTime(t + 1_010);
                h.processElement(new Rec("a", t, 1), t);
                h.processWatermark(t - 2_001); // a live stream's: 2 s of out-of-orderness
            }
            h.setProcessingTime(70_000 + 150); // every coarser window the watermark closed in time: none shown early
            assertThat(h.extractOutputValues()).filteredOn(r -> r.grain() != Grain.S1) // each once: its final row
                    .containsExactlyInAnyOrder(SEVENTY_SECONDS_CLOSED);
        }
    }

    @Test
    void aBacklogIsLeftToTheWatermarkUnlessItStaysOpen() throws Exception {
        try (var h = harness(60_000, 1, early(true))) {
            long wall = 1_000 + DELAY_MS + EarlyFiring.HORIZON_MS + 1; // catching up: past the live horizon
            h.setProcessingTime(wall);
            h.processElement(new Rec("a", 0, 4), 0);
            h.processElement(new Rec("b", 0, 5), 0);
            h.setProcessingTime(wall + EarlyFiring.QUIET_MS - 1);
            assertThat(h.extractOutputValues()).isEmpty();
            h.processWatermark(999); // a replay's watermark closes what it reads long before
            assertThat(h.extractOutputValues()).containsExactlyInAnyOrder(new Row("a", Grain.S1, 0, 1, 4, 4),
                    new Row("b", Grain.S1, 0, 1, 5, 5));
            // Samples sent at a step's end (iperf3 -J), then nothing: the watermark stops inside them.
            h.processElement(new Rec("a", 1_000, 6), 1_000);
            h.setProcessingTime(wall + 2 * EarlyFiring.QUIET_MS);
            assertThat(h.extractOutputValues()).hasSize(3).last().isEqualTo(new Row("a", Grain.S1, 1_000, 1, 6, 6));
        }
    }

    @Test
    void aBacklogWhoseWatermarkMovesShowsNoCoarserWindowEarly() throws Exception {
        // A job catching up (the stack behind its producers): every window ended long ago by the wall clock, but
        // the watermark is closing them. Shown early, each coarser window would be shown again at every second
        // rolled into it: a row per record for each of the 10 s and 1 min grains.
        try (var h = harness(5_000, 1, early(true))) {
            long wall = 500_000;
            for (long t = 0; t < 70_000; t += 1_000) {
                wall += 100; // ten event-time seconds per wall-clock second; each step fires the timers due
                h.setProcessingTime(wall);
                h.processElement(new Rec("a", t, 1), t);
                h.processWatermark(t - 2_001);
            }
            h.setProcessingTime(wall + EarlyFiring.STILL_MS - 1);
            assertThat(h.extractOutputValues()).filteredOn(r -> r.grain() != Grain.S1) // each once: its final row
                    .containsExactlyInAnyOrder(SEVENTY_SECONDS_CLOSED);
            // Then the topics go quiet: what the watermark left open is shown once it has stood still that long.
            h.setProcessingTime(wall + EarlyFiring.STILL_MS);
            assertThat(newestPerWindow(h.extractOutputValues())).containsValue(new Row("a", Grain.S10, 60_000, 10, 10, 1));
        }
    }

    @Test
    void aBacklogFollowedBySilenceShowsItsCoarserWindows() throws Exception {
        // The broker came back after the run ended: the backlog is the key's last data, the watermark stops inside
        // it and nothing else would ever show its 10 s and 1 min windows.
        try (var h = harness(60_000, 1, early(true))) {
            long wall = 70_000;
            h.setProcessingTime(wall);
            h.processElement(new Rec("a", 0, 4), 0);
            h.processElement(new Rec("a", 1_000, 5), 1_000);
            h.processWatermark(999);
            assertThat(h.extractOutputValues()).containsExactly(new Row("a", Grain.S1, 0, 1, 4, 4));
            h.setProcessingTime(wall + EarlyFiring.QUIET_MS); // its second; the coarser windows once the watermark
            assertThat(h.extractOutputValues()).hasSize(2).contains(new Row("a", Grain.S1, 1_000, 1, 5, 5));
            h.setProcessingTime(wall + EarlyFiring.STILL_MS); // has stood still long enough not to be a backlog's
            assertThat(h.extractOutputValues()).hasSize(4).contains(new Row("a", Grain.S1, 1_000, 1, 5, 5),
                    new Row("a", Grain.S10, 0, 2, 9, 5), new Row("a", Grain.M1, 0, 2, 9, 5));
            h.processWatermark(2_000_000);
            assertThat(newestPerWindow(h.extractOutputValues())).containsValues(new Row("a", Grain.S1, 1_000, 1, 5, 5),
                    new Row("a", Grain.S10, 0, 2, 9, 5), new Row("a", Grain.M1, 0, 2, 9, 5));
        }
    }

    @Test
    void aCoarserWindowShownEarlyIsShownAgainWhenMoreOfItComes() throws Exception {
        // A producer catching up after an outage, then the end of its run: the 10 s window is shown from its first
        // seconds while the rest is still on its way, and the watermark stops inside it.
        try (var h = harness(60_000, 1, early(true))) {
            long wall = 10_000 + EarlyFiring.QUIET_MS;
            h.setProcessingTime(wall);
            for (long t = 0; t < 3_000; t += 1_000) {
                h.processElement(new Rec("a", t, 1), t);
            }
            h.setProcessingTime(wall + EarlyFiring.QUIET_MS);
            assertThat(newestPerWindow(h.extractOutputValues())).containsValue(new Row("a", Grain.S10, 0, 3, 3, 1));
            for (long t = 3_000; t < 10_000; t += 1_000) {
                wall += 100;
                h.setProcessingTime(wall + EarlyFiring.QUIET_MS);
                h.processElement(new Rec("a", t, 1), t);
            }
            h.processWatermark(7_999);
            h.setProcessingTime(wall + EarlyFiring.QUIET_MS + EarlyFiring.STILL_MS);
            assertThat(newestPerWindow(h.extractOutputValues())).containsValue(new Row("a", Grain.S10, 0, 10, 10, 1));
            h.setProcessingTime(60_000 + EarlyFiring.QUIET_MS);
            assertThat(newestPerWindow(h.extractOutputValues())).containsValue(new Row("a", Grain.M1, 0, 10, 10, 1));
            h.processWatermark(Long.MAX_VALUE);
            assertThat(newestPerWindow(h.extractOutputValues())).containsValues(
                    new Row("a", Grain.S10, 0, 10, 10, 1), new Row("a", Grain.M1, 0, 10, 10, 1));
        }
    }

    @Test
    void offFiresOnTheWatermarkOnly() throws Exception {
        try (var h = harness(5_000, 1, EarlyFiring.after(Duration.ZERO, true))) {
            h.processElement(new Rec("a", 0, 1), 0);
            h.setProcessingTime(60_000);
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(h.numProcessingTimeTimers()).isZero();
            h.processWatermark(999);
            assertThat(h.extractOutputValues()).hasSize(1);
        }
    }

    /**
     * Random keys, out-of-order and late records, watermark jumps and wall-clock time passing at random: with
     * early firing, every window's newest row (and the late side output) is that of watermark firing alone; rows
     * that come on the wall clock are of the grains records go to directly, and never before their window's end
     * plus the delay.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void theNewestRowOfEveryWindowIsTheOneWithoutEarlyFiring(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        long lateness = new long[] {0, 1_000, 5_000, 30_000}[(int) (seed % 4)];
        int direct = 1 + (int) (seed % 3);
        boolean skip = seed % 2 == 0;
        try (var plain = harness(lateness, direct, EarlyFiring.OFF);
             var early = harness(lateness, direct, early(skip))) {
            List<Row> earlyRows = new ArrayList<>();
            int onTheWallClock = 0;
            long maxT = 0;
            long wm = Long.MIN_VALUE;
            long wall = 0;
            for (int i = 0; i < 3_000; i++) {
                long t = Math.max(0, maxT - r.nextLong(0, r.nextInt(10) == 0 ? 90_000 : 3_000));
                maxT = Math.max(maxT, t + r.nextLong(0, 400));
                Rec rec = new Rec("k" + r.nextInt(4), t, r.nextLong(1, 1_000));
                plain.processElement(rec, t);
                early.processElement(rec, t);
                drain(early, earlyRows);
                if (r.nextInt(3) == 0) {
                    wall = Math.max(wall, maxT + r.nextLong(-500, 1_500)); // the wall clock near the newest time
                    early.setProcessingTime(wall);
                    List<Row> shown = drain(early, earlyRows);
                    onTheWallClock += shown.size();
                    for (Row row : shown) {
                        assertThat(row.grain().ordinal()).as("grain of %s", row).isLessThan(direct);
                        assertThat(row.start() + row.grain().windowMs() + DELAY_MS).as("due time of %s", row)
                                .isLessThanOrEqualTo(wall);
                    }
                }
                if (r.nextInt(7) == 0) {
                    long next = maxT - r.nextLong(0, 4_000) + (r.nextInt(60) == 0 ? r.nextLong(0, 120_000) : 0);
                    if (next > wm) {
                        wm = next;
                        plain.processWatermark(wm);
                        early.processWatermark(wm);
                        drain(early, earlyRows);
                    }
                }
            }
            plain.processWatermark(Long.MAX_VALUE);
            early.processWatermark(Long.MAX_VALUE);
            drain(early, earlyRows);
            assertThat(newestPerWindow(earlyRows)).isEqualTo(newestPerWindow(plain.extractOutputValues()));
            assertThat(lateValues(early.getSideOutput(LATE))).isEqualTo(lateValues(plain.getSideOutput(LATE)));
            assertThat(onTheWallClock).isPositive();
        }
    }

    /** The rows a harness emitted since the last drain, appended to {@code all} too. */
    @SuppressWarnings("unchecked")
    private static List<Row> drain(KeyedOneInputStreamOperatorTestHarness<String, Rec, Row> h, List<Row> all) {
        List<Row> rows = new ArrayList<>();
        for (Object o : h.getOutput()) {
            if (o instanceof StreamRecord<?> rec) {
                rows.add(((StreamRecord<Row>) rec).getValue());
            }
        }
        h.getOutput().clear();
        all.addAll(rows);
        return rows;
    }

    private static Map<List<Object>, Row> newestPerWindow(List<Row> rows) {
        Map<List<Object>, Row> newest = new LinkedHashMap<>();
        for (Row row : rows) {
            newest.put(List.of(row.key(), row.grain(), row.start()), row);
        }
        return newest;
    }

    private static List<Long> lateValues(java.util.Collection<StreamRecord<Rec>> late) {
        return late == null ? List.of() : late.stream().map(rec -> rec.getValue().v).toList();
    }

    // ------------------------------------------------------------------------------------------- I/O and fleet

    private static IoSample sample(long ts, String vm, long seed) {
        return TestData.io("run", 0, ts, "h", vm, "t", "READ", TestData.latencies(seed, 300, 100_000), 4096, 2.0);
    }

    /**
     * A live second through the per-source operator and the fleet rollup on the wall clock alone: the per-source
     * rows and the fleet partial leave the delay after the second ends, the fleet's row a settle time later, all
     * provisional; the watermark then brings the fleet's final row (for the step analyzer), not the unchanged
     * per-source rows again.
     */
    @Test
    void aLiveSecondReachesTheFleetRowBeforeAnyWatermark() throws Exception {
        OutputTag<IoSample> late = new OutputTag<>("late", TypeInformation.of(IoSample.class));
        try (var source = new KeyedOneInputStreamOperatorTestHarness<>(
                new IoSourceRollupOperator(Grain.values(), 5_000, late).earlyFiring(early(true)),
                new IoSourceRollup.Key(), TypeInformation.of(new TypeHint<>() {}));
             var fleet = new KeyedOneInputStreamOperatorTestHarness<>(
                     new GrainRollupOperator<>(new IoFleetRollup(), Grain.values(), 5_000, null).earlyFiring(early(false)),
                     new IoFleetRollup.Key(), TypeInformation.of(new TypeHint<Tuple2<String, Integer>>() {}))) {
            source.setProcessingTime(0);
            fleet.setProcessingTime(0);
            source.open();
            fleet.open();
            source.setProcessingTime(1_030);
            fleet.setProcessingTime(1_030);
            for (int vm = 0; vm < 3; vm++) {
                source.processElement(sample(0, "vm" + vm, vm), 0);
            }
            for (long now = 1_050; now <= 1_350; now += 50) {
                source.setProcessingTime(now);
                var partials = source.getSideOutput(IoSourceRollupOperator.FLEET_PARTIALS);
                if (partials != null) {
                    for (StreamRecord<FleetPartial> p : partials) {
                        fleet.processElement(p.getValue(), p.getTimestamp());
                    }
                    partials.clear();
                }
                fleet.setProcessingTime(now);
            }
            List<IoRollupRow> sourceRows = source.extractOutputValues();
            assertThat(sourceRows).hasSize(3).allSatisfy(row -> {
                assertThat(row.provisional).isTrue();
                assertThat(row.grain).isEqualTo(Grain.S1);
            });
            List<FleetRollupRow> fleetRows = new ArrayList<>(fleet.extractOutputValues());
            assertThat(fleetRows).singleElement().satisfies(row -> {
                assertThat(row.provisional).isTrue();
                assertThat(row.stats.samples).isEqualTo(3);
                assertThat(row.stats.ops).isEqualTo(900);
            });
            source.processWatermark(999);
            fleet.processWatermark(999);
            assertThat(source.extractOutputValues()).hasSize(3); // unchanged: no final per-source rows
            fleetRows = fleet.extractOutputValues();
            assertThat(fleetRows).hasSize(2).last().satisfies(row -> {
                assertThat(row.provisional).isFalse();
                assertThat(row.stats.samples).isEqualTo(3);
            });
        }
    }
}
