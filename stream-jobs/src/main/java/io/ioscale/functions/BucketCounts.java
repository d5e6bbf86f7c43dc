package io.ioscale.functions;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.SparseBuckets;

/**
 * The bucket counts of a window's latency histogram while it fills: sparse (index, count) arrays are added in
 * place, without building a {@link LatencyHistogram} per sample (that allocation and its merge were the largest
 * cost of a rollup window in bench/flink_job_bench.md). The histogram is built once, when the window fires
 * ({@link #toHistogram}).
 *
 * <p>Memory, as in LatencyHistogram: counts are dense only over the 128-bucket groups between the lowest and the
 * highest index seen (two decades of latency ~ 7 groups ~ 7 KB), never all 4352 buckets. A window that receives
 * a single histogram (a source's 1 s window of 1 s samples: most windows) keeps that sample's sparse arrays as
 * they are and never allocates the dense form.
 *
 * <p>The arrays added are never modified (they belong to the sample, which is not touched after it is added).
 */
public class BucketCounts {
    private static final int GROUP = LatencyHistogram.SUB_BUCKET_COUNT;
    private static final long[] NONE = new long[0];
    private static final int[] NO_INDEXES = new int[0];

    /** counts[i] is bucket offset + i (the dense form, once a second histogram arrived). */
    public long[] counts = NONE;
    public int offset;
    /** The only histogram added so far (sparse), while {@link #counts} is still empty. */
    public int[] onlyIndexes = NO_INDEXES;
    public long[] onlyCounts = NONE;

    public BucketCounts() {}

    /** Adds sparse buckets (indexes ascending, validated when the sample was decoded). */
    public void add(int[] indexes, long[] bucketCounts) {
        int n = indexes.length;
        if (n == 0) {
            return;
        }
        if (counts.length == 0 && onlyIndexes.length == 0) {
            onlyIndexes = indexes;
            onlyCounts = bucketCounts;
            return;
        }
        densify();
        addDense(indexes, bucketCounts);
    }

    /** Moves the single sparse histogram, if any, into the dense form. */
    private void densify() {
        if (onlyIndexes.length == 0) {
            return;
        }
        int[] idx = onlyIndexes;
        long[] cnt = onlyCounts;
        onlyIndexes = NO_INDEXES;
        onlyCounts = NONE;
        addDense(idx, cnt);
    }

    private void addDense(int[] indexes, long[] bucketCounts) {
        int n = indexes.length;
        cover(indexes[0], indexes[n - 1]);
        long[] c = counts;
        int base = offset;
        for (int i = 0; i < n; i++) {
            c[indexes[i] - base] += bucketCounts[i];
        }
    }

    public void merge(BucketCounts other) {
        if (other.onlyIndexes.length > 0) {
            add(other.onlyIndexes, other.onlyCounts);
        }
        if (other.counts.length == 0) {
            return;
        }
        densify();
        cover(other.offset, other.offset + other.counts.length - 1);
        int shift = other.offset - offset;
        long[] src = other.counts;
        for (int i = 0; i < src.length; i++) {
            counts[shift + i] += src[i];
        }
    }

    private void cover(int lo, int hi) {
        int end = offset + counts.length;
        if (counts.length != 0 && lo >= offset && hi < end) {
            return;
        }
        int newStart = lo & -GROUP;
        int newEnd = (hi | (GROUP - 1)) + 1;
        if (counts.length != 0) {
            newStart = Math.min(newStart, offset);
            newEnd = Math.max(newEnd, end);
        }
        long[] grown = new long[newEnd - newStart];
        if (counts.length != 0) {
            System.arraycopy(counts, 0, grown, offset - newStart, counts.length);
        }
        counts = grown;
        offset = newStart;
    }

    public SparseBuckets toSparse() {
        if (counts.length == 0) {
            return new SparseBuckets(onlyIndexes, onlyCounts);
        }
        int n = 0;
        for (long k : counts) {
            if (k != 0) {
                n++;
            }
        }
        int[] idx = new int[n];
        long[] cnt = new long[n];
        int j = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 0) {
                idx[j] = offset + i;
                cnt[j++] = counts[i];
            }
        }
        return new SparseBuckets(idx, cnt);
    }

    /** Whether no bucket was added. */
    public boolean isEmpty() {
        return counts.length == 0 && onlyIndexes.length == 0;
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
}
