package io.ioscale.rollups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.records.Grain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import java.util.concurrent.RunnableFuture;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.CheckpointableKeyedStateBackend;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.runtime.state.SnapshotResult;
import org.apache.flink.runtime.state.memory.MemCheckpointStreamFactory;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The multi-grain operator against the semantics of Flink's window operator it replaced (tumbling event-time
 * windows per grain, event-time trigger, allowed lateness, late side output): a reference model in which every
 * grain takes every record ({@link Reference}) must emit exactly the same rows, fired again by late data the same
 * number of times, and send the same records to the late side output; also across a checkpoint and restore.
 */
@SuppressWarnings("try") // the harnesses are AutoCloseable; their close() may throw InterruptedException
class GrainRollupOperatorTest {

    private static final Grain[] GRAINS = Grain.values();
    private static final OutputTag<Rec> LATE = new OutputTag<>("late", TypeInformation.of(Rec.class));

    /** A record: key, event time, value. */
    public static class Rec {
        public String key = "";
        public long t;
        public long v;

        public Rec() {}

        Rec(String key, long t, long v) {
            this.key = key;
            this.t = t;
            this.v = v;
        }

        @Override
        public String toString() {
            return key + "@" + t + "=" + v;
        }
    }

    /** Count and sum: every figure a merge must keep exactly. */
    public static class Acc {
        public long count;
        public long sum;
        public long max = Long.MIN_VALUE;

        public Acc() {}
    }

    /** A row: identity (key, grain, start), version (count), and the sums. */
    record Row(String key, Grain grain, long start, long count, long sum, long max) {}

    static final class SumRollup implements GrainRollup<String, Rec, Acc, Row> {
        private static final long serialVersionUID = 1L;

        @Override
        public long eventTimeMs(Rec r) {
            return r.t;
        }

        @Override
        public Acc createAccumulator() {
            return new Acc();
        }

        @Override
        public void add(Acc acc, Rec r) {
            acc.count++;
            acc.sum += r.v;
            acc.max = Math.max(acc.max, r.v);
        }

        @Override
        public void merge(Acc into, Acc from) {
            into.count += from.count;
            into.sum += from.sum;
            into.max = Math.max(into.max, from.max);
        }

        @Override
        public Row row(String key, Grain grain, long start, Acc acc) {
            return new Row(key, grain, start, acc.count, acc.sum, acc.max);
        }

        @Override
        public TypeInformation<Acc> accumulatorType() {
            return TypeInformation.of(Acc.class);
        }
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Rec, Row> harness(long latenessMs) throws Exception {
        return harness(latenessMs, 1);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, Rec, Row> harness(long latenessMs, int directGrains)
            throws Exception {
        return new KeyedOneInputStreamOperatorTestHarness<>(
                new GrainRollupOperator<>(new SumRollup(), GRAINS, directGrains, latenessMs, LATE), r -> r.key,
                TypeInformation.of(String.class));
    }

    // --------------------------------------------------------------------------------------- reference model

    /** Flink's window semantics, naively: every grain's window takes every record that is in time for it. */
    static final class Reference {
        final long lateness;
        final Map<String, long[]> windows = new LinkedHashMap<>(); // key|len|start -> count, sum, max, fired
        final List<Row> rows = new ArrayList<>();
        final List<Rec> late = new ArrayList<>();
        long watermark = Long.MIN_VALUE;

        Reference(long lateness) {
            this.lateness = lateness;
        }

        void record(Rec r) {
            boolean taken = false;
            for (Grain g : GRAINS) {
                long len = g.windowMs();
                long start = r.t - Math.floorMod(r.t, len);
                long last = start + len - 1;
                if (last + lateness <= watermark) {
                    continue;
                }
                taken = true;
                long[] w = windows.computeIfAbsent(r.key + "|" + len + "|" + start,
                        k -> new long[] {0, 0, Long.MIN_VALUE, 0});
                w[0]++;
                w[1] += r.v;
                w[2] = Math.max(w[2], r.v);
                if (last <= watermark) {
                    w[3] = 1;
                    rows.add(new Row(r.key, g, start, w[0], w[1], w[2]));
                }
            }
            if (!taken) {
                late.add(r);
            }
        }

        void watermark(long wm) {
            watermark = wm;
            for (var it = windows.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                String[] id = e.getKey().split("\\|");
                long len = Long.parseLong(id[1]);
                long start = Long.parseLong(id[2]);
                long last = start + len - 1;
                long[] w = e.getValue();
                if (w[3] == 0 && last <= wm) {
                    w[3] = 1;
                    rows.add(new Row(id[0], Grain.ofWindowMs(len), start, w[0], w[1], w[2]));
                }
                if (last + lateness <= wm) {
                    it.remove();
                }
            }
        }
    }

    private static Map<Row, Integer> multiset(List<Row> rows) {
        Map<Row, Integer> m = new HashMap<>();
        for (Row r : rows) {
            m.merge(r, 1, Integer::sum);
        }
        return m;
    }

    // --------------------------------------------------------------------------------------- tests

    @Test
    void firesEachGrainOnceWhenTheWatermarkPassesItsEnd() throws Exception {
        try (var h = harness(0)) {
            h.open();
            for (long t = 0; t < 20_000; t += 1_000) {
                h.processElement(new Rec("a", t, t / 1_000), t);
            }
            h.processWatermark(9_998);
            assertThat(h.extractOutputValues()).hasSize(9).allSatisfy(r -> assertThat(r.grain()).isEqualTo(Grain.S1));
            h.processWatermark(9_999); // the tenth second and the first 10 s window (0 + 1 + ... + 9)
            assertThat(h.extractOutputValues()).hasSize(11)
                    .contains(new Row("a", Grain.S10, 0, 10, 45, 9));
            h.processWatermark(Long.MAX_VALUE); // end of input: everything still open fires
            List<Row> rows = h.extractOutputValues();
            assertThat(rows).hasSize(20 + 2 + 1).contains(new Row("a", Grain.M1, 0, 20, 190, 19));
            assertThat(h.numKeyedStateEntries()).isZero(); // all dropped after firing
        }
    }

    @Test
    void lateDataWithinTheLatenessFiresAgainAndLaterDataGoesToTheSideOutput() throws Exception {
        try (var h = harness(5_000)) {
            h.open();
            h.processElement(new Rec("a", 1_500, 7), 1_500);
            h.processWatermark(3_999); // [1000, 2000) fired, kept until 1999 + 5000
            h.processElement(new Rec("a", 1_200, 3), 1_200); // late, in time: fires again with both
            assertThat(h.extractOutputValues()).containsExactly(new Row("a", Grain.S1, 1_000, 1, 7, 7),
                    new Row("a", Grain.S1, 1_000, 2, 10, 7));
            h.processWatermark(8_999); // [1000, 2000) dropped
            h.processElement(new Rec("a", 1_900, 5), 1_900); // too late for 1 s, in time for 10 s and 1 min
            assertThat(h.getSideOutput(LATE)).isNull();
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.extractOutputValues()).contains(new Row("a", Grain.S10, 0, 3, 15, 7),
                    new Row("a", Grain.M1, 0, 3, 15, 7));
        }
        try (var h = harness(5_000)) {
            h.open();
            h.processElement(new Rec("b", 0, 1), 0);
            h.processWatermark(60_000 + 5_000 - 1); // the minute's cleanup time
            h.processElement(new Rec("b", 30_000, 2), 30_000); // too late for every grain
            assertThat(h.getSideOutput(LATE)).extracting(StreamRecord::getValue)
                    .extracting(r -> r.v).containsExactly(2L);
            assertThat(h.extractOutputValues()).hasSize(3); // the three first firings only
        }
    }

    @Test
    void aKeyHoldsOneTimerAtATimeAndOneStateEntry() throws Exception {
        try (var h = harness(30_000)) {
            h.open();
            for (long t = 0; t < 120_000; t += 1_000) {
                for (String key : List.of("a", "b", "c")) {
                    h.processElement(new Rec(key, t, 1), t);
                }
                h.processWatermark(t - 1);
                assertThat(h.numEventTimeTimers()).as("timers at %d", t).isEqualTo(3);
                assertThat(h.numKeyedStateEntries()).isEqualTo(3);
            }
        }
    }

    @Test
    void grainsMustNestFinestFirst() {
        assertThatThrownBy(() -> new GrainRollupOperator<>(new SumRollup(), new Grain[] {Grain.S10, Grain.S1}, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nest");
        assertThatThrownBy(() -> new GrainRollupOperator<>(new SumRollup(), GRAINS, 4, 0, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("directGrains");
    }

    /**
     * Random keys, out-of-order times, late and too-late records, watermark jumps (several windows due at once,
     * past their cleanup too), and optionally a checkpoint and restore into a fresh operator half-way: the rows,
     * how often each fires, and the late records are those of the reference; whichever grains records go to
     * directly (the others are filled by roll-up).
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void matchesTheReferenceOnRandomInput(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        long lateness = new long[] {0, 1_000, 5_000, 30_000}[(int) (seed % 4)];
        boolean restore = seed % 2 == 0;
        int direct = 1 + (int) (seed % 3);
        Reference ref = new Reference(lateness);
        var h = harness(lateness, direct);
        h.open();
        List<Row> got = new ArrayList<>();
        long maxT = 0;
        long wm = Long.MIN_VALUE;
        int n = 3_000;
        for (int i = 0; i < n; i++) {
            long t = Math.max(0, maxT - r.nextLong(0, r.nextInt(10) == 0 ? 90_000 : 3_000)); // mostly near the front
            maxT = Math.max(maxT, t + r.nextLong(0, 400));
            Rec rec = new Rec("k" + r.nextInt(4), t, r.nextLong(1, 1_000));
            ref.record(rec);
            h.processElement(rec, t);
            if (r.nextInt(7) == 0) {
                long next = maxT - r.nextLong(0, 4_000);
                if (r.nextInt(60) == 0) {
                    next = maxT + r.nextLong(0, 120_000); // a jump past several windows and cleanups
                    maxT = next;
                }
                if (next > wm) {
                    wm = next;
                    ref.watermark(wm);
                    h.processWatermark(wm);
                }
            }
            if (restore && i == n / 2) {
                h.prepareSnapshotPreBarrier(1);
                OperatorSubtaskState state = h.snapshot(1, 1);
                got.addAll(h.extractOutputValues());
                var late = h.getSideOutput(LATE);
                List<Rec> lateBefore = late == null ? List.of() : late.stream().map(StreamRecord::getValue).toList();
                h.close();
                h = harness(lateness, direct);
                h.initializeState(state);
                h.open();
                if (wm != Long.MIN_VALUE) {
                    h.processWatermark(wm); // a restored job's watermark starts over; upstream sends it again
                }
                assertThat(lateBefore).extracting(Rec::toString)
                        .isEqualTo(ref.late.stream().map(Rec::toString).toList());
                ref.late.clear();
            }
        }
        ref.watermark(Long.MAX_VALUE);
        h.processWatermark(Long.MAX_VALUE);
        got.addAll(h.extractOutputValues());
        var late = h.getSideOutput(LATE);
        assertThat(late == null ? List.<String>of() : late.stream().map(s -> s.getValue().toString()).toList())
                .isEqualTo(ref.late.stream().map(Rec::toString).toList());
        h.close();
        assertThat(multiset(got)).isEqualTo(multiset(ref.rows));
        long identities = ref.rows.stream().map(x -> x.key() + x.grain() + x.start()).distinct().count();
        if (lateness > 0) {
            assertThat((long) ref.rows.size()).as("the input exercises re-firing").isGreaterThan(identities);
        }
        assertThat(ref.late).as("the input exercises the late side output").isNotEmpty();
    }

    /**
     * A checkpoint written while records keep changing the windows (the heap backend's asynchronous snapshot,
     * copy-on-write): the state it holds is the state when it was taken. Copies share accumulators until one
     * changes (GrainWindows#writable), so a change that skipped that copy would leak into the checkpoint: the
     * restored operator, fed what the live one got after the snapshot, would then emit different rows.
     */
    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24, 25, 26})
    void aCheckpointWrittenWhileRecordsArriveHoldsTheStateWhenItWasTaken(long seed) throws Exception {
        SplittableRandom r = new SplittableRandom(seed);
        long lateness = new long[] {1_000, 5_000, 30_000}[(int) (seed % 3)];
        int direct = 1 + (int) (seed % 2);
        try (var live = harness(lateness, direct)) {
            live.open();
            List<Object[]> after = new ArrayList<>(); // (record or watermark) fed to the live operator after it
            RunnableFuture<SnapshotResult<KeyedStateHandle>> pending = null;
            long wm = Long.MIN_VALUE;
            long wmAtSnapshot = Long.MIN_VALUE;
            long maxT = 0;
            int n = 2_000;
            for (int i = 0; i < n; i++) {
                long t = Math.max(0, maxT - r.nextLong(0, r.nextInt(8) == 0 ? 40_000 : 3_000));
                maxT = Math.max(maxT, t + r.nextLong(0, 400));
                Rec rec = new Rec("k" + r.nextInt(5), t, r.nextLong(1, 1_000));
                live.processElement(rec, t);
                if (pending != null) {
                    after.add(new Object[] {rec});
                }
                if (r.nextInt(6) == 0 && maxT - 2_000 > wm) {
                    wm = maxT - 2_000;
                    live.processWatermark(wm);
                    if (pending != null) {
                        after.add(new Object[] {wm});
                    }
                }
                if (i == n / 2) {
                    live.extractOutputValues();
                    live.getOutput().clear();
                    var backend = (CheckpointableKeyedStateBackend<?>)
                            ((AbstractStreamOperator<?>) live.getOperator()).getKeyedStateBackend();
                    pending = backend.snapshot(1, 1,
                            new MemCheckpointStreamFactory(Integer.MAX_VALUE),
                            CheckpointOptions.forCheckpointWithDefaultLocation());
                    wmAtSnapshot = wm;
                }
            }
            live.processWatermark(Long.MAX_VALUE);
            List<Row> liveRows = live.extractOutputValues();
            pending.run(); // written only now, after every change above
            KeyedStateHandle written = pending.get().getJobManagerOwnedSnapshot();
            try (var restored = harness(lateness, direct)) {
                restored.initializeState(OperatorSubtaskState.builder().setManagedKeyedState(written).build());
                restored.open();
                if (wmAtSnapshot != Long.MIN_VALUE) {
                    restored.processWatermark(wmAtSnapshot);
                }
                restored.getOutput().clear(); // what the watermark fired again was fired before the snapshot too
                for (Object[] e : after) {
                    if (e[0] instanceof Rec rec) {
                        restored.processElement(rec, rec.t);
                    } else {
                        restored.processWatermark((Long) e[0]);
                    }
                }
                restored.processWatermark(Long.MAX_VALUE);
                assertThat(multiset(restored.extractOutputValues())).isEqualTo(multiset(liveRows));
                assertThat(liveRows).as("the input changes windows after the snapshot").isNotEmpty();
            }
        }
    }
}
