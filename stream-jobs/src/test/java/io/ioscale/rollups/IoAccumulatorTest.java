package io.ioscale.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.records.IoSample;
import io.ioscale.records.IoStats;
import io.ioscale.records.LatencyQuantiles;
import io.ioscale.testing.TestData;
import org.junit.jupiter.api.Test;

/** The one-sample shortcut for quantiles gives what the merged buckets give, and never outlives its sample. */
class IoAccumulatorTest {

    private static IoSample sample(long seed, int intervalMs) {
        IoSample s = TestData.io("r", 0, 0, "h", "vm" + seed, "t", "READ", TestData.latencies(seed, 3_000, 150_000),
                4096, 1.0);
        s.intervalMs = intervalMs;
        return s;
    }

    private static void sameAsFromTheBuckets(IoStats st, LatencyHistogram all) {
        LatencyQuantiles expected = LatencyQuantiles.of(all);
        assertThat(st.quantiles.n).isEqualTo(expected.n);
        assertThat(st.quantiles.valuesNs).isEqualTo(expected.valuesNs);
        assertThat(st.quantiles.tooFewSamples).isEqualTo(expected.tooFewSamples);
    }

    @Test
    void aOneSampleWindowReportsThatSamplesOwnQuantiles() {
        IoSample s = sample(1, 1_000);
        IoAccumulator acc = new IoAccumulator();
        acc.add(s);
        IoStats st = acc.toStats(1_000);
        assertThat(st.quantiles).isSameAs(s.quantiles());
        sameAsFromTheBuckets(st, TestData.histogram(TestData.latencies(1, 3_000, 150_000)));
    }

    @Test
    void moreSamplesMergesAndCopiesComputeFromTheBuckets() {
        IoSample a = sample(1, 1_000);
        IoSample b = sample(2, 1_000);
        LatencyHistogram both = TestData.histogram(TestData.latencies(1, 3_000, 150_000))
                .merge(TestData.histogram(TestData.latencies(2, 3_000, 150_000)));

        IoAccumulator added = new IoAccumulator();
        added.add(a);
        added.add(b);
        sameAsFromTheBuckets(added.toStats(1_000), both);

        IoAccumulator one = new IoAccumulator();
        one.add(a);
        IoAccumulator merged = new IoAccumulator();
        merged.merge(one); // an empty window taking a one-sample one: still that sample's quantiles
        assertThat(merged.toStats(1_000).quantiles).isSameAs(a.quantiles());
        IoAccumulator other = new IoAccumulator();
        other.add(b);
        merged.merge(other);
        sameAsFromTheBuckets(merged.toStats(1_000), both);

        IoAccumulator copy = IoAccumulatorSerializer.INSTANCE.copy(one); // restored state: recomputed, equal
        assertThat(copy.toStats(1_000).quantiles).isNotSameAs(a.quantiles())
                .usingRecursiveComparison().isEqualTo(a.quantiles());

        IoAccumulator shortSample = new IoAccumulator();
        IoSample tenth = sample(3, 100); // 100 ms samples share their second: no per-sample quantiles
        shortSample.add(tenth);
        assertThat(shortSample.toStats(1_000).quantiles).isNotSameAs(tenth.quantiles())
                .usingRecursiveComparison().isEqualTo(tenth.quantiles());
    }
}
