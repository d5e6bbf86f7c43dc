package io.ioscale.histogram;

import java.util.Arrays;

/**
 * The non-empty buckets of a histogram: indexes strictly ascending, counts &gt; 0, same length. These are the
 * Avro parallel arrays {@code latency_bucket_index} / {@code latency_bucket_count}; Python's
 * {@code ioscale.histogram.SparseBuckets}. Equality compares contents (a record alone would compare array
 * references).
 */
public record SparseBuckets(int[] indexes, long[] counts) {

    @Override
    public boolean equals(Object o) {
        return o instanceof SparseBuckets other
                && Arrays.equals(indexes, other.indexes)
                && Arrays.equals(counts, other.counts);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(indexes) + Arrays.hashCode(counts);
    }

    @Override
    public String toString() {
        return "SparseBuckets[indexes=" + Arrays.toString(indexes) + ", counts=" + Arrays.toString(counts) + "]";
    }
}
