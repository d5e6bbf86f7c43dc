package io.ioscale.rollups;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.testing.TestData;
import org.junit.jupiter.api.Test;

/** A fired window's compaction (dense counts packed back) changes nothing a row or a later merge sees. */
class BucketCountsTest {

    private static byte[] packed(long seed) {
        return PackedBuckets.of(TestData.histogram(TestData.latencies(seed, 2_000, 300_000)).toSparse());
    }

    @Test
    void compactingKeepsTheCountsAndLaterAddsLandAsWithoutIt() {
        BucketCounts compacted = new BucketCounts();
        BucketCounts plain = new BucketCounts();
        for (long seed = 1; seed <= 3; seed++) {
            compacted.add(packed(seed));
            plain.add(packed(seed));
        }
        assertThat(compacted.dense.isEmpty()).isFalse();
        compacted.compact();
        assertThat(compacted.dense.isEmpty()).isTrue(); // the ~7 KB dense window is gone
        assertThat(compacted.toSparse()).isEqualTo(plain.toSparse());
        assertThat(compacted.toPacked()).isEqualTo(plain.toPacked());

        // A late sample, then a merge into a coarser window: both as if never compacted.
        compacted.add(packed(4));
        plain.add(packed(4));
        assertThat(compacted.toSparse()).isEqualTo(plain.toSparse());
        BucketCounts coarser = new BucketCounts();
        coarser.add(packed(5));
        BucketCounts coarserPlain = coarser.copy();
        compacted.compact();
        coarser.merge(compacted);
        coarserPlain.merge(plain);
        assertThat(coarser.toSparse()).isEqualTo(coarserPlain.toSparse());
        LatencyHistogram all = TestData.histogram(TestData.concat(java.util.List.of(
                TestData.latencies(1, 2_000, 300_000), TestData.latencies(2, 2_000, 300_000),
                TestData.latencies(3, 2_000, 300_000), TestData.latencies(4, 2_000, 300_000),
                TestData.latencies(5, 2_000, 300_000))));
        assertThat(coarser.toSparse()).isEqualTo(all.toSparse());
    }

    @Test
    void aSingleHistogramStaysTheSharedArray() {
        byte[] one = packed(9);
        BucketCounts b = new BucketCounts();
        b.add(one);
        b.compact();
        assertThat(b.toPacked()).isSameAs(one);
    }
}
