package io.ioscale.histogram;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Mergeable latency histogram, bucket scheme 1: log-linear buckets over nanoseconds, 7 sub-bucket bits.
 *
 * <p>The same scheme, names and results as Python's {@code ioscale.histogram} (ingest/src/ioscale/histogram.py);
 * both are checked against one golden file, {@code schema/histogram_vectors.tsv}.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Range: every value 0 .. {@link #MAX_TRACKABLE_NS} = 2^40 - 1 ns (~18.3 min) has its own bucket; values
 *       0..255 ns are exact. Larger values are clamped into the last bucket and counted in
 *       {@link #overflowCount()}. Negative values are rejected.</li>
 *   <li>Error: a bucket's representative value (its midpoint) is within 1/256 = 0.39% of every value in the
 *       bucket (0 below 256 ns), half fio's and HdrHistogram-2-digit's 1/128 = 0.78%. A quantile is within the
 *       same 1/256 of the exact quantile of the raw values under the same definition: the bucket holding the
 *       exact quantile is the one reported, and clamping to the exact [min, max] only moves towards it.</li>
 *   <li>Mergeable: histograms merge by adding bucket counts, exactly; count, sum, min and max are kept exactly
 *       alongside. Percentiles are never averaged.</li>
 *   <li>Size: 4352 buckets (indexes 0..4351, fits ClickHouse UInt16). On the wire only non-empty buckets travel
 *       (Avro {@code latency_bucket_index} ascending / {@code latency_bucket_count}, {@code latency_hist_scheme = 1}).
 *       In memory (Flink state) the counts are a dense {@code long[]} over whole 128-bucket groups between the
 *       lowest and highest bucket seen ({@link DenseBuckets}): two decades of latency = ~7 groups = ~7 KB,
 *       not the 34 KB of all 4352 buckets (FIELD-NOTES: dense per-window histograms have filled a 2 GB heap).</li>
 * </ul>
 *
 * <h2>Bucket index of a value v</h2>
 * <pre>
 *   e        = max(0, bitLength(v) - 8)        (low bits dropped)
 *   index(v) = 128 * e + (v &gt;&gt; e)
 *   bucket   = [lower, upper), e = max(0, index / 128 - 1), lower = (index - 128 * e) &lt;&lt; e, upper = lower + 2^e
 *   representative = lower + 2^e / 2           (the midpoint; the value itself below 256 ns)
 * </pre>
 * For v &lt; 256, e = 0 and index = v. For v &gt;= 128 this is HdrHistogram's form with SUB_BUCKET_BITS = 7:
 * e = floor(log2 v) - 7 = bitLength(v) - 8 and index = (e + 1) * 128 + (v &gt;&gt; e) - 128, where +128 and -128
 * cancel. v &gt;&gt; e lies in [128, 256) once v &gt;= 256, so each shift's 128 buckets follow the previous shift's
 * without gap or overlap. A value in a bucket of shift e &gt;= 1 has v &gt;= 128 * 2^e and
 * |v - representative| &lt;= 2^(e-1), hence at most v / 256.
 *
 * <pre>
 *   shift e  values (ns)                      indexes       width   width in time   max error
 *   0        0 .. 255                         0 .. 255      1 ns    exact           0
 *   1        256 .. 511                       256 .. 383    2       2 ns            1/256
 *   2        512 .. 1023                      384 .. 511    4       4 ns            1/256
 *   3        1024 .. 2047       (1-2 us)      512 .. 639    8       8 ns            1/256
 *   7        16384 .. 32767     (16-33 us)    1024 .. 1151  128     128 ns          1/256
 *   10       131072 .. 262143   (131-262 us)  1408 .. 1535  1024    1.02 us         1/256
 *   13       2^20 .. 2^21-1     (1.05-2.1 ms) 1792 .. 1919  8192    8.2 us          1/256
 *   17       2^24 .. 2^25-1     (17-34 ms)    2304 .. 2431  2^17    131 us          1/256
 *   23       2^30 .. 2^31-1     (1.07-2.15 s) 3072 .. 3199  2^23    8.4 ms          1/256
 *   28       2^35 .. 2^36-1     (34-69 s)     3712 .. 3839  2^28    268 ms          1/256
 *   32       2^39 .. 2^40-1     (550-1100 s)  4224 .. 4351  2^32    4.3 s           1/256
 *   e        2^(e+7) .. 2^(e+8)-1             128(e+1) .. 128(e+1)+127, width 2^e
 *   overflow &gt;= 2^40 (&gt; MAX_TRACKABLE_NS)     4351 (clamped, counted in overflowCount)
 * </pre>
 * Examples: 1000 ns: e = 2, index 506, bucket [1000, 1004), representative 1002. 1 ms: e = 12, index 1780,
 * bucket [999424, 1003520), representative 1001472 (+0.15%). 60 s: e = 28, index 3807, representative
 * 59995324416 (-0.008%).
 *
 * <h2>Quantile definition (identical in Python and in the golden vectors)</h2>
 * For n = count and 0 &lt; q &lt; 1: rank r = ceil(q * (double) n), clamped to [1, n]; the answer is the
 * representative of the smallest bucket whose cumulative count is &gt;= r, clamped to [min, max]. q = 0 gives the
 * exact min, q = 1 the exact max. This is ClickHouse's {@code quantilesExactWeighted} rank rule over
 * (representative, count), so SQL over stored buckets agrees once it clamps to [min, max].
 *
 * <p>Too few samples: a tail quantile needs ~10 samples beyond it, {@code requiredN(q) = ceil(10 / (1 - q))}
 * (p99: 1000, p99.999: 10^6; q = 0 and 1 need 1), computed as {@code ceil(10.0 / (1.0 - q) * (1.0 - 1e-9))}
 * so the rounding of 1 - q does not make p90 need 101. Below it the result is flagged
 * {@code tooFewSamples} and its value is the exact max. An empty histogram answers 0, n = 0, flagged.
 *
 * <p>Not thread-safe. {@link Serializable} with plain fields, so Flink's generic (Kryo) serializer handles it;
 * {@link #toBytes()} is the compact form for a dedicated serializer or files.
 */
public final class LatencyHistogram implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Avro {@code latency_hist_scheme}. */
    public static final int SCHEME_ID = 1;
    public static final int SUB_BUCKET_BITS = 7;
    public static final int SUB_BUCKET_COUNT = 1 << SUB_BUCKET_BITS;
    /** Largest value with its own bucket; larger ones go to {@link #MAX_INDEX} as overflow. */
    public static final long MAX_TRACKABLE_NS = (1L << 40) - 1;
    private static final int MAX_SHIFT = 64 - Long.numberOfLeadingZeros(MAX_TRACKABLE_NS) - SUB_BUCKET_BITS - 1;
    public static final int BUCKET_COUNT = (MAX_SHIFT + 2) * SUB_BUCKET_COUNT;
    public static final int MAX_INDEX = BUCKET_COUNT - 1;
    public static final int MIN_SAMPLES_BEYOND_QUANTILE = 10;
    private static final double REQUIRED_N_SHAVE = 1.0 - 1e-9;

    /** Dense over whole 128-bucket groups between the lowest and highest bucket seen (DenseBuckets). */
    private DenseBuckets buckets = new DenseBuckets();
    private long count;
    private long sumNs;
    private long minNs = Long.MAX_VALUE; // sentinels while empty; the accessors answer 0 then
    private long maxNs = -1;
    private long overflowCount;

    public LatencyHistogram() {}

    // ---------------------------------------------------------------------------------------------- scheme

    /** Index of the bucket holding valueNs; values above MAX_TRACKABLE_NS clamp to MAX_INDEX. */
    public static int bucketIndex(long valueNs) {
        if (valueNs < 0) {
            throw new HistogramException("negative value " + valueNs + " ns: latencies are >= 0");
        }
        if (valueNs < 256) {
            return (int) valueNs;
        }
        int e = 56 - Long.numberOfLeadingZeros(valueNs); // bitLength(v) - 8
        if (e > MAX_SHIFT) {
            return MAX_INDEX;
        }
        return (e << SUB_BUCKET_BITS) + (int) (valueNs >>> e);
    }

    private static int shiftOf(int index) {
        if (index < 0 || index > MAX_INDEX) {
            throw new HistogramException("bucket index " + index + " out of range [0, " + MAX_INDEX + "]");
        }
        return Math.max(0, (index >> SUB_BUCKET_BITS) - 1);
    }

    /** Smallest value in bucket {@code index} (inclusive). */
    public static long bucketLowerNs(int index) {
        int e = shiftOf(index);
        return ((long) (index - (e << SUB_BUCKET_BITS))) << e;
    }

    /** End of bucket {@code index} (exclusive); the last bucket ends at 2^40. */
    public static long bucketUpperNs(int index) {
        int e = shiftOf(index);
        return ((long) (index - (e << SUB_BUCKET_BITS)) + 1) << e;
    }

    /** Midpoint of bucket {@code index} (lower + width / 2): within 1/256 of every value in it. */
    public static long bucketRepresentativeNs(int index) {
        int e = shiftOf(index);
        return (((long) (index - (e << SUB_BUCKET_BITS))) << e) + ((1L << e) >> 1);
    }

    /** Samples needed before quantile(q) is reported rather than the max: ceil(10 / (1 - q)); 1 at q = 0 or 1. */
    public static long requiredN(double q) {
        checkQ(q);
        if (q == 0.0 || q == 1.0) {
            return 1;
        }
        return (long) Math.ceil(MIN_SAMPLES_BEYOND_QUANTILE / (1.0 - q) * REQUIRED_N_SHAVE);
    }

    private static void checkQ(double q) {
        if (!(q >= 0.0 && q <= 1.0)) { // also rejects NaN
            throw new HistogramException("quantile level " + q + " is not in [0, 1]");
        }
    }

    // ---------------------------------------------------------------------------------------------- statistics

    public long count() {
        return count;
    }

    public long sumNs() {
        return sumNs;
    }

    /** Exact smallest value; 0 when empty (the Avro default). */
    public long minNs() {
        return count == 0 ? 0 : minNs;
    }

    /** Exact largest value, including overflow values; 0 when empty. */
    public long maxNs() {
        return count == 0 ? 0 : maxNs;
    }

    /** Values above MAX_TRACKABLE_NS, clamped into the last bucket. Not on the Avro wire. */
    public long overflowCount() {
        return overflowCount;
    }

    // ---------------------------------------------------------------------------------------------- recording

    public void record(long valueNs) {
        record(valueNs, 1);
    }

    /** Records valueNs {@code count} times; count 0 is a no-op. Throws before changing anything. */
    public void record(long valueNs, long count) {
        int index = bucketIndex(valueNs);
        if (count <= 0) {
            if (count == 0) {
                return;
            }
            throw new HistogramException("negative count " + count);
        }
        long newSum = Math.addExact(sumNs, Math.multiplyExact(valueNs, count));
        long newCount = Math.addExact(this.count, count);
        buckets.add(index, count);
        if (valueNs > MAX_TRACKABLE_NS) {
            overflowCount += count;
        }
        this.count = newCount;
        sumNs = newSum;
        minNs = Math.min(minNs, valueNs);
        maxNs = Math.max(maxNs, valueNs);
    }

    /** Records every value once. All or nothing: a negative value throws before anything is recorded. */
    public void recordMany(long[] valuesNs) {
        if (valuesNs.length == 0) {
            return;
        }
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        long sum = 0;
        for (long v : valuesNs) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
            sum = Math.addExact(sum, v);
        }
        if (lo < 0) {
            throw new HistogramException("negative value " + lo + " ns: latencies are >= 0");
        }
        long newSum = Math.addExact(sumNs, sum);
        long newCount = Math.addExact(count, valuesNs.length);
        buckets.cover(bucketIndex(lo), bucketIndex(hi));
        long[] c = buckets.counts();
        int base = buckets.offset();
        long overflow = 0;
        for (long v : valuesNs) {
            c[bucketIndex(v) - base]++;
            if (v > MAX_TRACKABLE_NS) {
                overflow++;
            }
        }
        overflowCount += overflow;
        count = newCount;
        sumNs = newSum;
        minNs = Math.min(minNs, lo);
        maxNs = Math.max(maxNs, hi);
    }

    /** Records valuesNs[i] countsOf[i] times each (zero counts are skipped). All or nothing on error. */
    public void recordMany(long[] valuesNs, long[] countsOf) {
        if (valuesNs.length != countsOf.length) {
            throw new HistogramException("values and counts differ in length ("
                    + valuesNs.length + " != " + countsOf.length + ")");
        }
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        long sum = 0;
        long total = 0;
        for (int i = 0; i < valuesNs.length; i++) {
            long k = countsOf[i];
            if (k < 0) {
                throw new HistogramException("negative count " + k);
            }
            if (k == 0) {
                continue;
            }
            long v = valuesNs[i];
            if (v < 0) {
                throw new HistogramException("negative value " + v + " ns: latencies are >= 0");
            }
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
            sum = Math.addExact(sum, Math.multiplyExact(v, k));
            total = Math.addExact(total, k);
        }
        if (total == 0) {
            return;
        }
        long newSum = Math.addExact(sumNs, sum);
        long newCount = Math.addExact(count, total);
        buckets.cover(bucketIndex(lo), bucketIndex(hi));
        long[] c = buckets.counts();
        int base = buckets.offset();
        for (int i = 0; i < valuesNs.length; i++) {
            long v = valuesNs[i];
            long k = countsOf[i];
            c[bucketIndex(v) - base] += k;
            if (v > MAX_TRACKABLE_NS) {
                overflowCount += k;
            }
        }
        count = newCount;
        sumNs = newSum;
        minNs = Math.min(minNs, lo);
        maxNs = Math.max(maxNs, hi);
    }

    // ---------------------------------------------------------------------------------------------- merging

    /** Adds other's counts and statistics into this histogram (exact); returns this. */
    public LatencyHistogram merge(LatencyHistogram other) {
        if (other.count == 0) {
            return this;
        }
        if (other == this) {
            other = copy();
        }
        long newSum = Math.addExact(sumNs, other.sumNs);
        long newCount = Math.addExact(count, other.count);
        buckets.addAll(other.buckets);
        count = newCount;
        sumNs = newSum;
        overflowCount += other.overflowCount;
        minNs = Math.min(minNs, other.minNs);
        maxNs = Math.max(maxNs, other.maxNs);
        return this;
    }

    public LatencyHistogram copy() {
        LatencyHistogram h = new LatencyHistogram();
        h.buckets = buckets.copy();
        return h.withStatistics(count, sumNs, minNs, maxNs, overflowCount);
    }

    private LatencyHistogram withStatistics(long count, long sumNs, long minNs, long maxNs, long overflowCount) {
        this.count = count;
        this.sumNs = sumNs;
        this.minNs = minNs;
        this.maxNs = maxNs;
        this.overflowCount = overflowCount;
        return this;
    }

    // ---------------------------------------------------------------------------------------------- sparse form

    /** Non-empty buckets, indexes ascending (the Avro parallel arrays). */
    public SparseBuckets toSparse() {
        return buckets.toSparse();
    }

    /** {@link #fromSparse(int[], long[], long, long, long, long)} without overflow (the Avro case). */
    public static LatencyHistogram fromSparse(int[] indexes, long[] counts, long sumNs, long minNs, long maxNs) {
        return fromSparse(indexes, counts, sumNs, minNs, maxNs, 0);
    }

    /** Avro-friendly overload: the arrays as Avro's Java binding delivers them. */
    public static LatencyHistogram fromSparse(List<Integer> indexes, List<Long> counts, long sumNs, long minNs,
                                              long maxNs) {
        int[] i = new int[indexes.size()];
        for (int k = 0; k < i.length; k++) {
            i[k] = indexes.get(k);
        }
        long[] c = new long[counts.size()];
        for (int k = 0; k < c.length; k++) {
            c[k] = counts.get(k);
        }
        return fromSparse(i, c, sumNs, minNs, maxNs, 0);
    }

    /**
     * Rebuilds a histogram from its sparse buckets plus the exact statistics (Avro latency_sum_ns, _min_ns,
     * _max_ns). Validates, in this order: same length; indexes strictly ascending; indexes in [0, MAX_INDEX];
     * counts &gt;= 0 (zeros are dropped); an empty histogram has every statistic 0; otherwise
     * 0 &lt;= minNs &lt;= maxNs, sumNs &gt;= 0, and overflow only in the last bucket with maxNs &gt; MAX_TRACKABLE_NS.
     * min/max are not checked against the buckets: converted sources (fio's own buckets) may place them in a
     * neighbouring bucket. Throws {@link HistogramException} naming the first problem.
     */
    public static LatencyHistogram fromSparse(int[] indexes, long[] counts, long sumNs, long minNs, long maxNs,
                                              long overflowCount) {
        if (indexes.length != counts.length) {
            throw new HistogramException("indexes and counts differ in length ("
                    + indexes.length + " != " + counts.length + ")");
        }
        int n = indexes.length;
        for (int i = 1; i < n; i++) {
            if (indexes[i] <= indexes[i - 1]) {
                throw new HistogramException("bucket indexes not strictly ascending at position " + i
                        + " (" + indexes[i] + " after " + indexes[i - 1] + ")");
            }
        }
        if (n > 0 && (indexes[0] < 0 || indexes[n - 1] > MAX_INDEX)) {
            int bad = indexes[0] < 0 ? indexes[0] : indexes[n - 1];
            throw new HistogramException("bucket index " + bad + " out of range [0, " + MAX_INDEX + "]");
        }
        long total = 0;
        int first = -1;
        int last = -1;
        for (int i = 0; i < n; i++) {
            if (counts[i] < 0) {
                throw new HistogramException("negative count " + counts[i] + " at position " + i);
            }
            if (counts[i] > 0) {
                total = Math.addExact(total, counts[i]);
                if (first < 0) {
                    first = indexes[i];
                }
                last = indexes[i];
            }
        }
        LatencyHistogram h = new LatencyHistogram();
        if (total == 0) {
            if (sumNs != 0 || minNs != 0 || maxNs != 0 || overflowCount != 0) {
                throw new HistogramException("empty histogram must have sum_ns, min_ns, max_ns and overflow_count 0,"
                        + " got " + sumNs + ", " + minNs + ", " + maxNs + ", " + overflowCount);
            }
            return h;
        }
        if (minNs < 0 || minNs > maxNs) {
            throw new HistogramException("need 0 <= min_ns <= max_ns <= 2^63 - 1, got min_ns=" + minNs
                    + ", max_ns=" + maxNs);
        }
        if (sumNs < 0) {
            throw new HistogramException("sum_ns " + sumNs + " is not in [0, 2^63 - 1]");
        }
        if (overflowCount != 0) {
            long lastCount = indexes[n - 1] == MAX_INDEX ? counts[n - 1] : 0;
            if (overflowCount < 0 || overflowCount > lastCount || maxNs <= MAX_TRACKABLE_NS) {
                throw new HistogramException("overflow_count " + overflowCount + " needs as many values in the last"
                        + " bucket (has " + lastCount + ") and max_ns > " + MAX_TRACKABLE_NS + " (is " + maxNs + ")");
            }
        }
        h.buckets.cover(Math.min(first, bucketIndex(minNs)), Math.max(last, bucketIndex(maxNs)));
        long[] c = h.buckets.counts();
        int base = h.buckets.offset();
        for (int i = 0; i < n; i++) {
            c[indexes[i] - base] = counts[i];
        }
        return h.withStatistics(total, sumNs, minNs, maxNs, overflowCount);
    }

    // ---------------------------------------------------------------------------------------------- quantiles

    public QuantileResult quantile(double q) {
        long need = requiredN(q);
        long n = count;
        if (n < need) {
            return new QuantileResult(q, maxNs(), n, true, need);
        }
        long value;
        if (q == 0.0) {
            value = minNs;
        } else if (q == 1.0) {
            value = maxNs;
        } else {
            long rank = Math.min(Math.max((long) Math.ceil(q * (double) n), 1), n);
            long seen = 0;
            int i = 0;
            long[] c = buckets.counts();
            while (true) { // terminates: the counts sum to n >= rank
                seen += c[i];
                if (seen >= rank) {
                    break;
                }
                i++;
            }
            long rep = bucketRepresentativeNs(buckets.offset() + i);
            value = Math.min(Math.max(rep, minNs), maxNs);
        }
        return new QuantileResult(q, value, n, false, need);
    }

    /** One result per level, in the order given. */
    public List<QuantileResult> quantiles(double... qs) {
        for (double q : qs) {
            checkQ(q); // all or nothing
        }
        List<QuantileResult> out = new ArrayList<>(qs.length);
        for (double q : qs) {
            out.add(quantile(q));
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------- binary form

    /*
     * Format history (bump ENCODING_VERSION on any change; decoders reject versions they do not know):
     *   1  byte 0 = version 1; then unsigned LEB128 varints (7 bits per byte, low group first, high bit set on
     *      all but the last byte, at most 9 bytes since every field is <= 2^63 - 1): scheme id (1), sum_ns,
     *      min_ns, max_ns, overflow_count, k = number of non-empty buckets, then k pairs (index delta, count):
     *      the first delta is the index itself, later ones the gap to the previous index (>= 1); counts >= 1.
     *      count is not stored: it is the sum of the counts. Empty histogram: 01 01 00 00 00 00 00.
     */
    public static final int ENCODING_VERSION = 1;

    public byte[] toBytes() {
        SparseBuckets sparse = toSparse();
        int[] indexes = sparse.indexes();
        long[] bucketCounts = sparse.counts();
        // Worst case: 1 version byte, 6 header varints of <= 9 bytes, per bucket a <= 2-byte delta
        // (indexes < 2^14) and a <= 9-byte count.
        byte[] buf = new byte[1 + 6 * 9 + 11 * indexes.length];
        buf[0] = ENCODING_VERSION;
        int pos = 1;
        pos = putVarint(buf, pos, SCHEME_ID);
        pos = putVarint(buf, pos, sumNs);
        pos = putVarint(buf, pos, minNs());
        pos = putVarint(buf, pos, maxNs());
        pos = putVarint(buf, pos, overflowCount);
        pos = putVarint(buf, pos, indexes.length);
        int previous = 0;
        for (int i = 0; i < indexes.length; i++) {
            pos = putVarint(buf, pos, indexes[i] - previous);
            pos = putVarint(buf, pos, bucketCounts[i]);
            previous = indexes[i];
        }
        return Arrays.copyOf(buf, pos);
    }

    public static LatencyHistogram fromBytes(byte[] data) {
        if (data.length == 0) {
            throw new HistogramException("truncated encoding: no version byte");
        }
        int version = data[0] & 0xFF;
        if (version != ENCODING_VERSION) {
            throw new HistogramException("unsupported encoding version " + version
                    + " (this code reads " + ENCODING_VERSION + ")");
        }
        VarintReader reader = new VarintReader(data, 1);
        long scheme = reader.next();
        if (scheme != SCHEME_ID) {
            throw new HistogramException("unsupported scheme " + scheme + " (this code reads " + SCHEME_ID + ")");
        }
        long sumNs = reader.next();
        long minNs = reader.next();
        long maxNs = reader.next();
        long overflowCount = reader.next();
        long k = reader.next();
        // Each bucket takes at least two bytes: bounds the allocation by the input, not by a hostile k.
        int capacity = (int) Math.min(k, (data.length - reader.pos) / 2 + 1);
        int[] indexes = new int[capacity];
        long[] counts = new long[capacity];
        long index = 0;
        for (long b = 0; b < k; b++) {
            index += reader.next();
            long c = reader.next();
            if (c == 0) {
                throw new HistogramException("zero count in encoded bucket " + index
                        + " (encodings hold non-empty buckets)");
            }
            if (index > MAX_INDEX) {
                throw new HistogramException("bucket index " + index + " out of range [0, " + MAX_INDEX + "]");
            }
            indexes[(int) b] = (int) index;
            counts[(int) b] = c;
        }
        if (reader.pos != data.length) {
            throw new HistogramException("trailing bytes after the encoding (" + (data.length - reader.pos) + ")");
        }
        return fromSparse(Arrays.copyOf(indexes, (int) k), Arrays.copyOf(counts, (int) k), sumNs, minNs, maxNs,
                overflowCount);
    }

    private static int putVarint(byte[] buf, int pos, long value) {
        if (value < 0) {
            throw new HistogramException(value + " does not fit the encoding's unsigned 63-bit varints");
        }
        while (value > 0x7F) {
            buf[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[pos++] = (byte) value;
        return pos;
    }

    private static final class VarintReader {
        private final byte[] data;
        private int pos;

        VarintReader(byte[] data, int pos) {
            this.data = data;
            this.pos = pos;
        }

        long next() {
            int start = pos;
            long value = 0;
            int shift = 0;
            int p = pos;
            while (true) {
                if (p >= data.length) {
                    throw new HistogramException("truncated varint at byte " + start);
                }
                int b = data[p++] & 0xFF;
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    break;
                }
                if (shift == 56) { // a 10th byte would carry bit 63 or beyond
                    throw new HistogramException("varint at byte " + start + " exceeds 2^63 - 1");
                }
                shift += 7;
            }
            pos = p;
            return value;
        }
    }

    // ---------------------------------------------------------------------------------------------- value semantics

    @Override
    public boolean equals(Object o) {
        return o instanceof LatencyHistogram h
                && count == h.count && sumNs == h.sumNs && minNs() == h.minNs() && maxNs() == h.maxNs()
                && overflowCount == h.overflowCount && toSparse().equals(h.toSparse());
    }

    @Override
    public int hashCode() {
        return Long.hashCode(count) * 31 + toSparse().hashCode();
    }

    @Override
    public String toString() {
        return "LatencyHistogram(count=" + count + ", min_ns=" + minNs() + ", max_ns=" + maxNs()
                + ", buckets=" + toSparse().indexes().length + ", overflow_count=" + overflowCount + ")";
    }
}
