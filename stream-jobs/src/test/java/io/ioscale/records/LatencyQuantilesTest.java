package io.ioscale.records;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.rollups.BucketCounts;
import io.ioscale.sinks.JsonRowWriter;
import io.ioscale.sinks.RowBinaryWriter;
import io.ioscale.testing.TestData;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one-pass quantiles over sparse buckets agree with LatencyHistogram.quantile exactly; the columns they write
 * hold NULL, not 0 or the max, when the histogram is empty.
 */
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

    private static final String[] NS = {"p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns"};

    /** Values 1 .. 100 ns: exact buckets (below 256 ns a bucket holds one value), so the oracle is by hand. */
    private static LatencyQuantiles oneToHundred() {
        LatencyHistogram h = TestData.histogram(LongStream.rangeClosed(1, 100).toArray());
        return LatencyQuantiles.of(PackedBuckets.of(h.toSparse()), h.minNs(), h.maxNs());
    }

    /** {@code w} after writing one row of {@code q}'s columns. */
    private static <W extends RowFormat> W written(LatencyQuantiles q, W w) {
        w.beginRow();
        q.write(w);
        w.endRow();
        return w;
    }

    @Test
    void anEmptyHistogramWritesNullQuantilesAsJson() {
        // A window of a source without buckets (Iometer): no I/O in the histogram, whatever its exact max.
        LatencyQuantiles q = LatencyQuantiles.of(PackedBuckets.EMPTY, 100_000, 35_600_000);
        assertThat(written(q, new JsonRowWriter()).toString()).isEqualTo("{\"latency_n\":0,\"p50_ns\":null,\"p90_ns\":null,\"p99_ns\":null,"
                + "\"p99_9_ns\":null,\"p99_99_ns\":null,\"p99_999_ns\":null,\"p50_too_few\":true,\"p90_too_few\":true,"
                + "\"p99_too_few\":true,\"p99_9_too_few\":true,\"p99_99_too_few\":true,\"p99_999_too_few\":true}\n");
    }

    @Test
    void aHistogramWithSamplesWritesItsQuantilesAsJson() {
        // N = 100: p50 and p90 are ranks 50 and 90; p99 and deeper need N >= 1000, so the max (100) stands in.
        assertThat(written(oneToHundred(), new JsonRowWriter()).toString()).isEqualTo("{\"latency_n\":100,\"p50_ns\":50,\"p90_ns\":90,\"p99_ns\":100,"
                + "\"p99_9_ns\":100,\"p99_99_ns\":100,\"p99_999_ns\":100,\"p50_too_few\":false,\"p90_too_few\":false,"
                + "\"p99_too_few\":true,\"p99_9_too_few\":true,\"p99_99_too_few\":true,\"p99_999_too_few\":true}\n");
    }

    @Test
    void rowBinaryWritesNullableUInt64QuantilesNullWhenEmpty() {
        RowBinaryWriter empty = written(LatencyQuantiles.of(PackedBuckets.EMPTY, 100_000, 35_600_000),
                new RowBinaryWriter());
        RowBinaryWriter full = written(oneToHundred(), new RowBinaryWriter());

        List<String> types = empty.types();
        assertThat(types.subList(0, 7)).containsExactly("UInt64", "Nullable(UInt64)", "Nullable(UInt64)",
                "Nullable(UInt64)", "Nullable(UInt64)", "Nullable(UInt64)", "Nullable(UInt64)");
        assertThat(types.subList(7, 13)).isEqualTo(Collections.nCopies(6, "Bool"));
        assertThat(full.types()).isEqualTo(types);
        assertThat(empty.names().subList(1, 7)).containsExactly(NS);

        // latency_n 0, six NULL markers (1, no value), six too-few flags (true).
        ByteBuffer e = ByteBuffer.allocate(8 + 6 + 6).order(ByteOrder.LITTLE_ENDIAN).putLong(0);
        for (int i = 0; i < 6; i++) {
            e.put((byte) 1);
        }
        for (int i = 0; i < 6; i++) {
            e.put((byte) 1);
        }
        assertThat(Arrays.copyOf(empty.buffer(), empty.length())).isEqualTo(e.array());

        // latency_n 100, six values each after a not-NULL marker (0), then the flags.
        ByteBuffer f = ByteBuffer.allocate(8 + 6 * 9 + 6).order(ByteOrder.LITTLE_ENDIAN).putLong(100);
        for (long v : new long[] {50, 90, 100, 100, 100, 100}) {
            f.put((byte) 0).putLong(v);
        }
        for (boolean tooFew : new boolean[] {false, false, true, true, true, true}) {
            f.put((byte) (tooFew ? 1 : 0));
        }
        assertThat(Arrays.copyOf(full.buffer(), full.length())).isEqualTo(f.array());
    }
}
