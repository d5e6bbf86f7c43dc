package io.ioscale.histogram;

import java.util.Arrays;

/**
 * Bucket counts held dense, but only over whole 128-bucket groups between the lowest and the highest index seen:
 * two decades of latency ~ 7 groups ~ 7 KB, never all 4352 buckets (34 KB; FIELD-NOTES: dense per-window
 * histograms have filled a 2 GB heap). The window only grows. {@link LatencyHistogram} and the rollups'
 * {@code BucketCounts} both keep their counts here: this is the one place that grows the window.
 *
 * <p>Not thread-safe. {@link #counts()} and {@link #offset()} expose the live array for tight loops:
 * {@code counts()[i]} is bucket {@code offset() + i}.
 */
public final class DenseBuckets implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private static final int GROUP = LatencyHistogram.SUB_BUCKET_COUNT;
    private static final long[] NONE = new long[0];

    private long[] counts = NONE;
    private int offset;

    public DenseBuckets() {}

    /** Whether no window was allocated yet (nothing added, nothing covered). */
    public boolean isEmpty() {
        return counts.length == 0;
    }

    /** The live array: {@code counts()[i]} is bucket {@code offset() + i}. */
    public long[] counts() {
        return counts;
    }

    /** Index of {@code counts()[0]}; a multiple of 128. */
    public int offset() {
        return offset;
    }

    /** Grows the window (whole 128-bucket groups) to include indexes lo..hi (lo &lt;= hi). */
    public void cover(int lo, int hi) {
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

    /** Adds {@code n} to bucket {@code index}. */
    public void add(int index, long n) {
        cover(index, index);
        counts[index - offset] += n;
    }

    /** Adds sparse buckets (indexes ascending). */
    public void addSparse(int[] indexes, long[] bucketCounts) {
        int n = indexes.length;
        if (n == 0) {
            return;
        }
        cover(indexes[0], indexes[n - 1]);
        long[] c = counts;
        int base = offset;
        for (int i = 0; i < n; i++) {
            c[indexes[i] - base] += bucketCounts[i];
        }
    }

    /** Adds every count of {@code other}. */
    public void addAll(DenseBuckets other) {
        if (other.counts.length == 0) {
            return;
        }
        cover(other.offset, other.offset + other.counts.length - 1);
        long[] src = other.counts;
        long[] dst = counts;
        int shift = other.offset - offset;
        for (int i = 0; i < src.length; i++) {
            dst[shift + i] += src[i];
        }
    }

    /** Non-empty buckets, indexes ascending. */
    public SparseBuckets toSparse() {
        long[] c = counts;
        int n = 0;
        for (long k : c) {
            if (k != 0) {
                n++;
            }
        }
        int[] indexes = new int[n];
        long[] out = new long[n];
        int j = 0;
        for (int i = 0; i < c.length; i++) {
            if (c[i] != 0) {
                indexes[j] = offset + i;
                out[j++] = c[i];
            }
        }
        return new SparseBuckets(indexes, out);
    }

    public DenseBuckets copy() {
        DenseBuckets d = new DenseBuckets();
        d.counts = counts.length == 0 ? NONE : counts.clone();
        d.offset = offset;
        return d;
    }

    /** Same non-empty buckets (the window's extent does not matter). */
    @Override
    public boolean equals(Object o) {
        return o instanceof DenseBuckets d && toSparse().equals(d.toSparse());
    }

    @Override
    public int hashCode() {
        return toSparse().hashCode();
    }

    @Override
    public String toString() {
        return "DenseBuckets(offset=" + offset + ", counts=" + Arrays.toString(counts) + ")";
    }
}
