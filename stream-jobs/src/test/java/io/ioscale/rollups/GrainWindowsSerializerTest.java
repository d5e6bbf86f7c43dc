package io.ioscale.rollups;

import static io.ioscale.testing.Serialization.roundTrip;
import static io.ioscale.testing.Serialization.snapshotRestoresAnEqualSerializer;
import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.IoSample;
import io.ioscale.testing.TestData;
import org.junit.jupiter.api.Test;

/** The per-key state of the multi-grain operator: round trip, copy (the heap backend's copy-on-write). */
class GrainWindowsSerializerTest {

    private static IoSample sample(long seed) {
        return TestData.io("run", 0, 1_500, "h", "vm", "t", "READ", TestData.latencies(seed, 200, 50_000), 4096, 1.0);
    }

    @Test
    void roundTripsWindowsWithTheirAccumulatorsAndCopiesDeeply() throws Exception {
        GrainWindowsSerializer<IoAccumulator> s = new GrainWindowsSerializer<>(IoAccumulatorSerializer.INSTANCE);
        GrainWindows<IoAccumulator> w = new GrainWindows<>();
        IoAccumulator a = new IoAccumulator();
        a.add(sample(1));
        int i = w.add(1_000, 1_000, a);
        w.fired[i] = true;
        w.add(10_000, 0, new IoAccumulator());
        w.timerMs = 1_999;

        GrainWindows<IoAccumulator> back = roundTrip(s, w);
        assertThat(back.toString()).isEqualTo(w.toString()).contains("[1000+1000 fired]", "[0+10000]", "timer=1999");
        assertThat(back.accumulator(0).toStats(1_000)).usingRecursiveComparison().isEqualTo(a.toStats(1_000));

        // A copy shares the accumulators until one side changes one (through writable): then that side's own.
        GrainWindows<IoAccumulator> copy = s.copy(w);
        assertThat(copy.accumulator(1)).isSameAs(w.accumulator(1));
        w.writable(0, IoAccumulatorSerializer.INSTANCE).add(sample(2));
        w.fired[1] = true;
        assertThat(copy.accumulator(0).samples).isEqualTo(1);
        assertThat(w.accumulator(0).samples).isEqualTo(2);
        assertThat(copy.fired[1]).isFalse();
        copy.writable(1, IoAccumulatorSerializer.INSTANCE).add(sample(3)); // the copy too copies before a change
        assertThat(w.accumulator(1).samples).isZero();
        assertThat(copy.accumulator(1).samples).isEqualTo(1);
        IoAccumulator own = w.writable(0, IoAccumulatorSerializer.INSTANCE);
        assertThat(w.writable(0, IoAccumulatorSerializer.INSTANCE)).isSameAs(own); // copied once, not per change
        snapshotRestoresAnEqualSerializer(s);
    }
}
