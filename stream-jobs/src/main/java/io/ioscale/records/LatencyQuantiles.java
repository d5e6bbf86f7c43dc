package io.ioscale.records;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.QuantileResult;
import java.util.function.IntUnaryOperator;

/**
 * The six reported latency quantiles of one merged histogram, each with the too-few-samples flag of
 * {@link LatencyHistogram#quantile}: when N is below ceil(10 / (1 - q)) the value is the exact max, and the flag
 * says so (p99.999 needs N &gt;= 10^6, so in a 1 s window it is nearly always the max). Columns:
 * {@code latency_n}, {@code p50_ns} .. {@code p99_999_ns}, {@code p50_too_few} .. {@code p99_999_too_few}.
 *
 * <p>N = 0 (no histogram: a source that reports only count, mean and max, such as Iometer) writes every
 * {@code p*_ns} as NULL: there is no percentile, and a 0 or the max in its place reads as one.
 * {@link #valuesNs} still holds 0 then, flagged too-few, as {@link LatencyHistogram#quantile} answers.
 */
public class LatencyQuantiles {
    public static final double[] LEVELS = {0.50, 0.90, 0.99, 0.999, 0.9999, 0.99999};
    public static final String[] NAMES = {"p50", "p90", "p99", "p99_9", "p99_99", "p99_999"};
    private static final String[] COLUMNS_NS = {"p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns"};
    private static final String[] COLUMNS_TOO_FEW =
            {"p50_too_few", "p90_too_few", "p99_too_few", "p99_9_too_few", "p99_99_too_few", "p99_999_too_few"};

    /** Samples in the histogram. */
    public long n;
    public long[] valuesNs = new long[LEVELS.length];
    public boolean[] tooFewSamples = new boolean[LEVELS.length];

    public LatencyQuantiles() {}

    /**
     * The same six quantiles from sparse buckets and the exact statistics, in one pass and without building a
     * {@link LatencyHistogram}: {@link LatencyHistogram#quantile}'s rule step for step (rank ceil(q n) clamped to
     * [1, n], the first bucket whose cumulative count reaches it, its representative clamped to [min, max]; too
     * few samples: the max). LatencyQuantilesTest checks both agree on every golden vector and on random input.
     */
    public static LatencyQuantiles of(int[] indexes, long[] counts, long minNs, long maxNs) {
        return of(i -> indexes[i], counts, minNs, maxNs);
    }

    /**
     * The same from a packed histogram ({@link PackedBuckets}): its total is in the header, so this is one pass
     * that stops at the highest rank needed, with no arrays unpacked (the 1 s rows of every source).
     */
    public static LatencyQuantiles of(byte[] packed, long minNs, long maxNs) {
        LatencyQuantiles q = new LatencyQuantiles();
        long n = PackedBuckets.total(packed);
        q.n = n;
        long[] ranks = new long[LEVELS.length];
        int[] levelOf = new int[LEVELS.length];
        int k = 0;
        for (int i = 0; i < LEVELS.length; i++) {
            double level = LEVELS[i];
            if (n < LatencyHistogram.requiredN(level)) {
                q.valuesNs[i] = n == 0 ? 0 : maxNs;
                q.tooFewSamples[i] = true;
            } else { // LEVELS ascend, so do the ranks
                ranks[k] = Math.min(Math.max((long) Math.ceil(level * (double) n), 1), n);
                levelOf[k++] = i;
            }
        }
        int[] at = new int[k];
        PackedBuckets.bucketsAtRanks(packed, ranks, k, at);
        for (int r = 0; r < k; r++) {
            long rep = LatencyHistogram.bucketRepresentativeNs(PackedBuckets.index(packed, at[r]));
            q.valuesNs[levelOf[r]] = Math.min(Math.max(rep, minNs), maxNs);
        }
        return q;
    }

    private static LatencyQuantiles of(IntUnaryOperator indexAt, long[] counts, long minNs, long maxNs) {
        LatencyQuantiles q = new LatencyQuantiles();
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        q.n = n;
        int b = 0;
        long seen = 0;
        for (int i = 0; i < LEVELS.length; i++) { // LEVELS ascend, so one forward scan serves all six
            double level = LEVELS[i];
            if (n < LatencyHistogram.requiredN(level)) {
                q.valuesNs[i] = n == 0 ? 0 : maxNs;
                q.tooFewSamples[i] = true;
                continue;
            }
            long rank = Math.min(Math.max((long) Math.ceil(level * (double) n), 1), n);
            while (seen + counts[b] < rank) {
                seen += counts[b];
                b++;
            }
            long rep = LatencyHistogram.bucketRepresentativeNs(indexAt.applyAsInt(b));
            q.valuesNs[i] = Math.min(Math.max(rep, minNs), maxNs);
        }
        return q;
    }

    public static LatencyQuantiles of(LatencyHistogram h) {
        LatencyQuantiles q = new LatencyQuantiles();
        q.n = h.count();
        for (int i = 0; i < LEVELS.length; i++) {
            QuantileResult r = h.quantile(LEVELS[i]);
            q.valuesNs[i] = r.valueNs();
            q.tooFewSamples[i] = r.tooFewSamples();
        }
        return q;
    }

    /** Value of level {@code q} (one of {@link #LEVELS}). */
    public long valueNs(double q) {
        return valuesNs[indexOf(q)];
    }

    public boolean tooFew(double q) {
        return tooFewSamples[indexOf(q)];
    }

    private static int indexOf(double q) {
        for (int i = 0; i < LEVELS.length; i++) {
            if (LEVELS[i] == q) {
                return i;
            }
        }
        throw new IllegalArgumentException("level " + q + " is not reported; reported: 0.5 .. 0.99999");
    }

    public void write(RowFormat out) {
        out.uint64("latency_n", n);
        for (int i = 0; i < LEVELS.length; i++) {
            out.nullableUInt64(COLUMNS_NS[i], valuesNs[i], n == 0);
        }
        for (int i = 0; i < LEVELS.length; i++) {
            out.bool(COLUMNS_TOO_FEW[i], tooFewSamples[i]);
        }
    }
}
