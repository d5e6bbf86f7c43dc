package io.ioscale.sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.records.ColumnType;
import io.ioscale.testing.TestData;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The packed-histogram shortcut writes the bytes (and header) of the two plain array columns. */
class RowBinaryWriterTest {

    private static byte[] rows(RowBinaryWriter w) {
        return Arrays.copyOf(w.buffer(), w.length());
    }

    @Test
    void packedBucketsAreTheBytesOfTheTwoArrayColumns() {
        long[] huge = {1, 70_000, 5_000_000_000L}; // widths 1..8 across the rows
        for (SparseBuckets s : new SparseBuckets[] {
                TestData.histogram(TestData.latencies(3, 2_000, 80_000)).toSparse(),
                new SparseBuckets(new int[] {0, 4351, 4352}, huge),
                new SparseBuckets(new int[0], new long[0])}) {
            RowBinaryWriter plain = new RowBinaryWriter();
            plain.beginRow().uint8("x", 7).arrayUInt16("latency_bucket_index", s.indexes())
                    .arrayUInt64("latency_bucket_count", s.counts()).endRow();
            RowBinaryWriter packed = new RowBinaryWriter();
            packed.beginRow().uint8("x", 7)
                    .packedBuckets("latency_bucket_index", "latency_bucket_count", PackedBuckets.of(s)).endRow();
            assertThat(rows(packed)).isEqualTo(rows(plain));
            assertThat(packed.header()).isEqualTo(plain.header());
        }
    }

    @Test
    void otherFormatsWriteThePackedHistogramAsPlainArrays() {
        SparseBuckets s = new SparseBuckets(new int[] {3, 9}, new long[] {2, 300});
        JsonRowWriter w = new JsonRowWriter();
        w.beginRow().packedBuckets("i", "c", PackedBuckets.of(s)).endRow();
        assertThat(w.toString()).isEqualTo("{\"i\":[3,9],\"c\":[2,300]}\n");
    }

    @Test
    void nullableUInt64IsAMarkerByteThenTheValueUnlessNull() {
        RowBinaryWriter w = new RowBinaryWriter();
        w.beginRow().nullableUInt64("a", 0x0102030405060708L, false).nullableUInt64("b", 7, true).endRow();
        assertThat(w.types()).containsExactly("Nullable(UInt64)", "Nullable(UInt64)");
        assertThat(rows(w)).containsExactly(0, 8, 7, 6, 5, 4, 3, 2, 1, 1);
    }

    @Test
    void nullInANonNullableColumnIsRefused() {
        RowBinaryWriter w = new RowBinaryWriter();
        assertThatThrownBy(() -> w.beginRow().nullValue("n", ColumnType.UINT64))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n is UInt64");
    }
}
