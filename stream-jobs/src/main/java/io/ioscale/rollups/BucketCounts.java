package io.ioscale.rollups;

import io.ioscale.histogram.DenseBuckets;
import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;

/**
 * The bucket counts of a rollup's latency histogram while it fills: each sample's buckets are added in place,
 * without building a {@link LatencyHistogram} per sample (that allocation and its merge would be the largest cost
 * of a rollup window). The histogram is built once, when the row is made
 * ({@link #toHistogram}, {@link #toSparse}).
 *
 * <p>Memory: counts are dense only over the 128-bucket groups the values touched ({@link DenseBuckets}). A window
 * that receives a single histogram (a source's 1 s window of 1 s samples: most windows) keeps that sample's
 * packed array as it is and never allocates the dense form. The arrays added are never modified (they belong to
 * the sample, which is not touched after it is added).
 */
public class BucketCounts {
    /** The counts, once a second histogram arrived (empty until then). */
    public DenseBuckets dense = new DenseBuckets();
    /** The only histogram added so far ({@link PackedBuckets}), while {@link #dense} is still empty. */
    public byte[] only = PackedBuckets.EMPTY;

    public BucketCounts() {}

    /** Adds a packed histogram. */
    public void add(byte[] packed) {
        if (packed.length == 0) {
            return;
        }
        if (dense.isEmpty() && only.length == 0) {
            only = packed;
            return;
        }
        densify();
        PackedBuckets.addTo(packed, dense);
    }

    /** Adds sparse buckets (indexes ascending, validated when the sample was decoded). */
    public void add(int[] indexes, long[] counts) {
        if (indexes.length == 0) {
            return;
        }
        densify();
        dense.addSparse(indexes, counts);
    }

    /** Moves the single packed histogram, if any, into the dense form. */
    private void densify() {
        if (only.length != 0) {
            byte[] p = only;
            only = PackedBuckets.EMPTY;
            PackedBuckets.addTo(p, dense);
        }
    }

    public void merge(BucketCounts other) {
        add(other.only);
        if (!other.dense.isEmpty()) {
            densify();
            dense.addAll(other.dense);
        }
    }

    public SparseBuckets toSparse() {
        return dense.isEmpty() ? PackedBuckets.unpack(only) : dense.toSparse();
    }

    /** The counts packed; a single added histogram is returned as it is (immutable, shared). */
    public byte[] toPacked() {
        return dense.isEmpty() ? only : PackedBuckets.of(dense);
    }

    /**
     * Packs dense counts back into {@link #only}: a window that has fired keeps its buckets only for late data,
     * and its dense form (~7 KB) would sit in the heap and be packed again by every checkpoint until its
     * lateness ends. The next add densifies it again.
     */
    public void compact() {
        if (!dense.isEmpty()) {
            only = PackedBuckets.of(dense);
            dense = new DenseBuckets();
        }
    }

    /** Whether no bucket was added. */
    public boolean isEmpty() {
        return dense.isEmpty() && only.length == 0;
    }

    /**
     * The histogram of these buckets with the exact statistics of the samples that carried them (sum, min, max
     * of their latency fields), so its quantiles are clamped to the exact [min, max] like any LatencyHistogram.
     */
    public LatencyHistogram toHistogram(long sumNs, long minNs, long maxNs) {
        SparseBuckets s = toSparse();
        if (s.indexes().length == 0) {
            return new LatencyHistogram();
        }
        return LatencyHistogram.fromSparse(s.indexes(), s.counts(), sumNs, minNs, maxNs);
    }

    /** A copy that shares nothing mutable (the packed array is immutable). */
    public BucketCounts copy() {
        BucketCounts b = new BucketCounts();
        b.dense = dense.copy();
        b.only = only;
        return b;
    }
}
