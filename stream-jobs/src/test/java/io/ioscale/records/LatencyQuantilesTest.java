package io.ioscale.records;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.rollups.BucketCounts;
import io.ioscale.testing.TestData;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one-pass quantiles over sparse buckets agree with LatencyHistogram.quantile exactly. */
class LatencyQuantilesTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 19, 20, 21, 99, 100, 101, 999, 1000, 1001, 9_999, 10_000, 100_000})
    void sparsePathEqualsTheHistogramAtEveryThreshold(int n) {
        for (long seed = 0; seed < 5; seed++) {
            long[] values = TestData.latencies(seed * 7919 + n, n, 10_000 + seed * 100_000);
            SplittableRandom r = new SplittableRandom(seed);
            for (int i = 0; i < values.length; i += 97) {
                values[i] = r.nextLong(0, 300); // some exact small values too
            }
            LatencyHistogram h = TestData.histogram(values);
            SparseBuckets s = h.toSparse();
            LatencyQuantiles viaHistogram = LatencyQuantiles.of(h);
            LatencyQuantiles viaSparse = LatencyQuantiles.of(s.indexes(), s.counts(), h.minNs(), h.maxNs());
            LatencyQuantiles viaPacked = LatencyQuantiles.of(PackedBuckets.of(s), h.minNs(), h.maxNs());
            for (LatencyQuantiles q : new LatencyQuantiles[] {viaSparse, viaPacked}) {
                assertThat(q.n).isEqualTo(viaHistogram.n);
                assertThat(q.valuesNs).as("n=%d seed=%d", n, seed).isEqualTo(viaHistogram.valuesNs);
                assertThat(q.tooFewSamples).isEqualTo(viaHistogram.tooFewSamples);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 7})
    void bucketCountsMergeLikeHistograms(int parts) {
        BucketCounts b = new BucketCounts();
        LatencyHistogram all = new LatencyHistogram();
        BucketCounts other = new BucketCounts();
        for (int p = 0; p < parts; p++) {
            long[] v = TestData.latencies(p, 500, 1_000L << (3 * p));
            LatencyHistogram h = TestData.histogram(v);
            all.merge(h);
            if (p % 3 == 2) { // the plain arrays (the step analyzer's way) and the packed form mix
                (p % 2 == 0 ? b : other).add(h.toSparse().indexes(), h.toSparse().counts());
            } else {
                (p % 2 == 0 ? b : other).add(PackedBuckets.of(h.toSparse()));
            }
        }
        b.merge(other);
        assertThat(b.toSparse()).isEqualTo(all.toSparse());
        assertThat(PackedBuckets.unpack(b.toPacked())).isEqualTo(all.toSparse());
        assertThat(b.toHistogram(all.sumNs(), all.minNs(), all.maxNs())).isEqualTo(all);
        assertThat(new BucketCounts().isEmpty()).isTrue();
    }
}
