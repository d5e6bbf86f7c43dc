package io.ioscale.histogram;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A sparse histogram (non-empty buckets, indexes ascending) packed into one {@code byte[]}: the form in which
 * IoSamples carry their buckets between operators and into the rows. Why: Flink serializes a {@code byte[]} as one
 * bulk copy, but an {@code int[]} and a {@code long[]} element by element, and every sample crosses a shuffle with
 * its histogram. The counts take the fewest bytes that hold the largest
 * one, so a typical one-second sample (counts &lt; 65536) costs 4 bytes per bucket instead of 12; the indexes are
 * already ClickHouse's {@code Array(UInt16)} body; the total lets quantiles run in one partial pass.
 *
 * <pre>
 *   byte 0        w = width of every count in bytes: 1, 2, 4 or 8 (the smallest that holds the largest count)
 *   bytes 1..8    total = sum of the counts, unsigned 64-bit little-endian
 *   bytes 9..     n bucket indexes, unsigned 16-bit little-endian, strictly ascending (scheme 1: 0..4351)
 *   then          n counts, w bytes each, unsigned little-endian, every one &gt; 0
 *   n = (length - 9) / (2 + w); no buckets: the empty array (no header)
 * </pre>
 * Format history: 1 (this one). Packed arrays live only inside the job (shuffles, state, rows), never on a wire or
 * in a file another version reads; a change needs a new state layout (new operator uids), not a version byte.
 * The arrays are immutable once packed: operators and rows share them by reference.
 */
public final class PackedBuckets {
    public static final byte[] EMPTY = new byte[0];
    /** Offset of the first bucket index. */
    public static final int INDEXES_AT = 9;

    private static final VarHandle SHORT_LE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private PackedBuckets() {}

    /** Packs the first {@code n} buckets; zero counts are dropped. Indexes must be ascending in [0, 65535]. */
    public static byte[] pack(int[] indexes, long[] counts, int n) {
        int kept = 0;
        long max = 0;
        long total = 0;
        for (int i = 0; i < n; i++) {
            long c = counts[i];
            if (c < 0) {
                throw new IllegalArgumentException("negative bucket count " + c + " at position " + i);
            }
            if (c > 0) {
                kept++;
                max = Math.max(max, c);
                total = Math.addExact(total, c);
            }
            if (indexes[i] < 0 || indexes[i] > 0xFFFF || (i > 0 && indexes[i] <= indexes[i - 1])) {
                throw new IllegalArgumentException("bucket index " + indexes[i] + " at position " + i
                        + " is out of range or not ascending");
            }
        }
        if (kept == 0) {
            return EMPTY;
        }
        int w = width(max);
        byte[] p = header(kept, w, total);
        int at = INDEXES_AT;
        int countAt = INDEXES_AT + 2 * kept;
        for (int i = 0; i < n; i++) {
            long c = counts[i];
            if (c == 0) {
                continue;
            }
            SHORT_LE.set(p, at, (short) indexes[i]);
            at += 2;
            putCount(p, countAt, w, c);
            countAt += w;
        }
        return p;
    }

    public static byte[] pack(int[] indexes, long[] counts) {
        if (indexes.length != counts.length) {
            throw new IllegalArgumentException("indexes and counts differ in length (" + indexes.length + " != "
                    + counts.length + ")");
        }
        return pack(indexes, counts, indexes.length);
    }

    public static byte[] of(SparseBuckets s) {
        return pack(s.indexes(), s.counts());
    }

    /** The non-empty buckets of {@code d}, packed (two passes over the dense window, no sparse arrays between). */
    public static byte[] of(DenseBuckets d) {
        long[] c = d.counts();
        int n = 0;
        long max = 0;
        long total = 0;
        for (long k : c) {
            if (k != 0) {
                n++;
                max = Math.max(max, k);
                total += k;
            }
        }
        if (n == 0) {
            return EMPTY;
        }
        int w = width(max);
        byte[] p = header(n, w, total);
        int at = INDEXES_AT;
        int countAt = INDEXES_AT + 2 * n;
        int base = d.offset();
        for (int i = 0; i < c.length; i++) {
            long k = c[i];
            if (k == 0) {
                continue;
            }
            SHORT_LE.set(p, at, (short) (base + i));
            at += 2;
            putCount(p, countAt, w, k);
            countAt += w;
        }
        return p;
    }

    private static byte[] header(int n, int w, long total) {
        byte[] p = new byte[INDEXES_AT + n * (2 + w)];
        p[0] = (byte) w;
        LONG_LE.set(p, 1, total);
        return p;
    }

    private static int width(long max) {
        return max < 1L << 8 ? 1 : max < 1L << 16 ? 2 : max < 1L << 32 ? 4 : 8;
    }

    private static void putCount(byte[] p, int at, int w, long c) {
        switch (w) {
            case 1 -> p[at] = (byte) c;
            case 2 -> SHORT_LE.set(p, at, (short) c);
            case 4 -> INT_LE.set(p, at, (int) c);
            default -> LONG_LE.set(p, at, c);
        }
    }

    /** Number of buckets. */
    public static int size(byte[] p) {
        return p.length == 0 ? 0 : (p.length - INDEXES_AT) / (2 + p[0]);
    }

    /** Sum of the counts (from the header). */
    public static long total(byte[] p) {
        return p.length == 0 ? 0 : (long) LONG_LE.get(p, 1);
    }

    public static int index(byte[] p, int i) {
        return (short) SHORT_LE.get(p, INDEXES_AT + 2 * i) & 0xFFFF;
    }

    /** Count of bucket {@code i}; {@code n} = {@link #size}, {@code w} = p[0] (hoisted by the caller's loop). */
    public static long count(byte[] p, int n, int w, int i) {
        int at = INDEXES_AT + 2 * n + i * w;
        return switch (w) {
            case 1 -> p[at] & 0xFFL;
            case 2 -> (short) SHORT_LE.get(p, at) & 0xFFFFL;
            case 4 -> (int) INT_LE.get(p, at) & 0xFFFF_FFFFL;
            default -> (long) LONG_LE.get(p, at);
        };
    }

    public static long count(byte[] p, int i) {
        return count(p, size(p), p[0], i);
    }

    public static SparseBuckets unpack(byte[] p) {
        int n = size(p);
        int[] indexes = new int[n];
        long[] counts = new long[n];
        for (int i = 0; i < n; i++) {
            indexes[i] = index(p, i);
        }
        if (n > 0) {
            int w = p[0];
            for (int i = 0; i < n; i++) {
                counts[i] = count(p, n, w, i);
            }
        }
        return new SparseBuckets(indexes, counts);
    }

    /**
     * Writes the {@code n} counts as UInt64 little-endian into {@code dst} at {@code at} (ClickHouse's
     * {@code Array(UInt64)} body); returns the position after them.
     */
    public static int putCountsAsUInt64(byte[] p, int n, byte[] dst, int at) {
        int src = INDEXES_AT + 2 * n;
        switch (n == 0 ? 0 : p[0]) {
            case 0 -> { }
            case 1 -> {
                for (int i = 0; i < n; i++, at += 8) {
                    LONG_LE.set(dst, at, p[src + i] & 0xFFL);
                }
            }
            case 2 -> {
                for (int i = 0; i < n; i++, at += 8) {
                    LONG_LE.set(dst, at, (short) SHORT_LE.get(p, src + 2 * i) & 0xFFFFL);
                }
            }
            case 4 -> {
                for (int i = 0; i < n; i++, at += 8) {
                    LONG_LE.set(dst, at, (int) INT_LE.get(p, src + 4 * i) & 0xFFFF_FFFFL);
                }
            }
            default -> {
                System.arraycopy(p, src, dst, at, 8 * n);
                at += 8 * n;
            }
        }
        return at;
    }

    /**
     * For ranks in ascending order (each in [1, total]), the position of the first bucket whose cumulative count
     * reaches each rank, in one pass that stops at the last rank ({@code out[r]} for {@code ranks[r]}, r &lt; k).
     */
    public static void bucketsAtRanks(byte[] p, long[] ranks, int k, int[] out) {
        int n = size(p);
        int at = INDEXES_AT + 2 * n;
        long seen = 0;
        int r = 0;
        if (k == 0) {
            return;
        }
        switch (p[0]) {
            case 1 -> {
                for (int i = 0; i < n && r < k; i++) {
                    seen += p[at + i] & 0xFFL;
                    while (r < k && seen >= ranks[r]) {
                        out[r++] = i;
                    }
                }
            }
            case 2 -> {
                for (int i = 0; i < n && r < k; i++) {
                    seen += (short) SHORT_LE.get(p, at + 2 * i) & 0xFFFFL;
                    while (r < k && seen >= ranks[r]) {
                        out[r++] = i;
                    }
                }
            }
            case 4 -> {
                for (int i = 0; i < n && r < k; i++) {
                    seen += (int) INT_LE.get(p, at + 4 * i) & 0xFFFF_FFFFL;
                    while (r < k && seen >= ranks[r]) {
                        out[r++] = i;
                    }
                }
            }
            default -> {
                for (int i = 0; i < n && r < k; i++) {
                    seen += (long) LONG_LE.get(p, at + 8 * i);
                    while (r < k && seen >= ranks[r]) {
                        out[r++] = i;
                    }
                }
            }
        }
        if (r < k) {
            throw new IllegalArgumentException("rank " + ranks[r] + " is beyond the total " + seen);
        }
    }

    /** Adds the packed counts into {@code dst}: the hot path of every rollup, one loop per count width. */
    public static void addTo(byte[] p, DenseBuckets dst) {
        int n = size(p);
        if (n == 0) {
            return;
        }
        dst.cover(index(p, 0), index(p, n - 1));
        long[] c = dst.counts();
        int base = dst.offset();
        int countAt = INDEXES_AT + 2 * n;
        switch (p[0]) {
            case 1 -> {
                for (int i = 0; i < n; i++) {
                    c[index(p, i) - base] += p[countAt + i] & 0xFFL;
                }
            }
            case 2 -> {
                for (int i = 0; i < n; i++) {
                    c[index(p, i) - base] += (short) SHORT_LE.get(p, countAt + 2 * i) & 0xFFFFL;
                }
            }
            case 4 -> {
                for (int i = 0; i < n; i++) {
                    c[index(p, i) - base] += (int) INT_LE.get(p, countAt + 4 * i) & 0xFFFF_FFFFL;
                }
            }
            default -> {
                for (int i = 0; i < n; i++) {
                    c[index(p, i) - base] += (long) LONG_LE.get(p, countAt + 8 * i);
                }
            }
        }
    }
}
