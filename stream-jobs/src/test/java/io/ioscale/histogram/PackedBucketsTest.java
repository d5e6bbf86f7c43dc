package io.ioscale.histogram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.testing.TestData;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The packed form against the sparse arrays it stands for, at every count width. */
class PackedBucketsTest {

    /** Random sparse buckets whose largest count needs {@code width} bytes. */
    private static SparseBuckets random(long seed, int width) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = 1 + r.nextInt(400);
        int[] idx = new int[n];
        long[] cnt = new long[n];
        int at = r.nextInt(200);
        long max = width == 8 ? Long.MAX_VALUE / 1000 : (1L << (8 * width)) - 1;
        for (int i = 0; i < n; i++) {
            at += 1 + r.nextInt(9);
            idx[i] = Math.min(at, LatencyHistogram.MAX_INDEX - (n - i));
            at = idx[i];
            cnt[i] = 1 + r.nextLong(Math.max(1, max >> 8));
        }
        cnt[r.nextInt(n)] = max; // the widest count decides the width
        return new SparseBuckets(idx, cnt);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void roundTripsAtEveryWidthWithTheTotalInTheHeader(int width) {
        for (long seed = 0; seed < 20; seed++) {
            SparseBuckets s = random(seed, width);
            byte[] p = PackedBuckets.of(s);
            assertThat(p[0]).isEqualTo((byte) width);
            assertThat(PackedBuckets.size(p)).isEqualTo(s.indexes().length);
            assertThat(p).hasSize(PackedBuckets.INDEXES_AT + s.indexes().length * (2 + width));
            assertThat(PackedBuckets.unpack(p)).isEqualTo(s);
            long total = 0;
            for (long c : s.counts()) {
                total += c;
            }
            assertThat(PackedBuckets.total(p)).isEqualTo(total);
            for (int i = 0; i < s.indexes().length; i += 7) {
                assertThat(PackedBuckets.index(p, i)).isEqualTo(s.indexes()[i]);
                assertThat(PackedBuckets.count(p, i)).isEqualTo(s.counts()[i]);
            }
        }
    }

    @Test
    void dropsZeroCountsAndRejectsWhatItCannotHold() {
        byte[] p = PackedBuckets.pack(new int[] {3, 5, 9}, new long[] {2, 0, 1});
        assertThat(PackedBuckets.unpack(p)).isEqualTo(new SparseBuckets(new int[] {3, 9}, new long[] {2, 1}));
        assertThat(PackedBuckets.pack(new int[] {1}, new long[] {0})).isSameAs(PackedBuckets.EMPTY);
        assertThat(PackedBuckets.unpack(PackedBuckets.EMPTY)).isEqualTo(new SparseBuckets(new int[0], new long[0]));
        assertThat(PackedBuckets.total(PackedBuckets.EMPTY)).isZero();
        assertThatThrownBy(() -> PackedBuckets.pack(new int[] {1}, new long[] {-1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> PackedBuckets.pack(new int[] {5, 5}, new long[] {1, 1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ascending");
        assertThatThrownBy(() -> PackedBuckets.pack(new int[] {70_000}, new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of range");
        assertThatThrownBy(() -> PackedBuckets.pack(new int[] {1, 2}, new long[] {1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("differ in length");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void addsIntoDenseBucketsLikeTheSparseArraysAndPacksThemBack(int width) {
        DenseBuckets viaPacked = new DenseBuckets();
        DenseBuckets viaSparse = new DenseBuckets();
        for (long seed = 0; seed < 5; seed++) {
            SparseBuckets s = random(seed * 31 + width, Math.min(width, 4)); // sums of 8-byte counts would overflow
            PackedBuckets.addTo(PackedBuckets.of(s), viaPacked);
            viaSparse.addSparse(s.indexes(), s.counts());
        }
        assertThat(viaPacked.toSparse()).isEqualTo(viaSparse.toSparse());
        assertThat(PackedBuckets.unpack(PackedBuckets.of(viaPacked))).isEqualTo(viaSparse.toSparse());
        assertThat(viaPacked.offset() % LatencyHistogram.SUB_BUCKET_COUNT).isZero(); // whole 128-bucket groups
        assertThat(viaPacked.counts().length % LatencyHistogram.SUB_BUCKET_COUNT).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8})
    void writesCountsAsClickHouseUInt64(int width) {
        SparseBuckets s = random(99 + width, width);
        byte[] p = PackedBuckets.of(s);
        int n = s.indexes().length;
        byte[] dst = new byte[3 + 8 * n];
        assertThat(PackedBuckets.putCountsAsUInt64(p, n, dst, 3)).isEqualTo(3 + 8 * n);
        ByteBuffer b = ByteBuffer.wrap(dst, 3, 8 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            assertThat(b.getLong()).isEqualTo(s.counts()[i]);
        }
    }

    @Test
    void findsTheBucketOfEachRankLikeACumulativeScan() {
        LatencyHistogram h = TestData.histogram(TestData.latencies(5, 10_000, 200_000));
        SparseBuckets s = h.toSparse();
        byte[] p = PackedBuckets.of(s);
        long[] ranks = {1, 2, 5_000, 9_000, 9_999, 10_000};
        int[] at = new int[ranks.length];
        PackedBuckets.bucketsAtRanks(p, ranks, ranks.length, at);
        for (int r = 0; r < ranks.length; r++) {
            long seen = 0;
            int b = 0;
            while (seen + s.counts()[b] < ranks[r]) {
                seen += s.counts()[b++];
            }
            assertThat(at[r]).as("rank %d", ranks[r]).isEqualTo(b);
        }
        assertThatThrownBy(() -> PackedBuckets.bucketsAtRanks(p, new long[] {10_001}, 1, new int[1]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void denseBucketsGrowByWholeGroupsAndCopyDeeply() {
        DenseBuckets d = new DenseBuckets();
        assertThat(d.isEmpty()).isTrue();
        d.add(300, 2);
        assertThat(d.offset()).isEqualTo(256);
        assertThat(d.counts()).hasSize(128);
        d.add(1_000, 1);
        d.add(5, 4);
        assertThat(d.offset()).isZero();
        assertThat(d.counts()).hasSize(1_024);
        DenseBuckets c = d.copy();
        d.add(5, 1);
        assertThat(c.toSparse()).isEqualTo(new SparseBuckets(new int[] {5, 300, 1_000}, new long[] {4, 2, 1}));
        assertThat(c).isNotEqualTo(d);
        c.add(5, 1);
        assertThat(c).isEqualTo(d);
    }
}
