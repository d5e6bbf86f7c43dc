package io.ioscale.records;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;

/**
 * How a result row writes its columns: by name and by exact ClickHouse type, in table order. Two formats
 * implement it: {@link RowBinaryWriter} (what the ClickHouse sink inserts: RowBinaryWithNamesAndTypes, so the
 * server checks every name and type against the table) and {@link JsonRowWriter} (the Kafka alerts topic).
 *
 * <p>{@code nullableFloat64} and {@code arrayNullableFloat64} write NaN and infinities as NULL.
 */
public interface RowFormat {
    String DATETIME64 = "DateTime64(3, 'UTC')";

    RowFormat beginRow();

    RowFormat endRow();

    /** DateTime64(3, 'UTC') from epoch milliseconds. */
    RowFormat dateTime64(String name, long epochMs);

    RowFormat string(String name, String value);

    RowFormat lowCardinality(String name, String value);

    /** A String column holding raw bytes (null writes ""). */
    RowFormat bytes(String name, byte[] value);

    RowFormat int32(String name, int value);

    RowFormat uint8(String name, int value);

    RowFormat uint16(String name, int value);

    RowFormat uint32(String name, long value);

    RowFormat int64(String name, long value);

    RowFormat uint64(String name, long value);

    RowFormat float64(String name, double value);

    RowFormat nullableFloat64(String name, double value);

    RowFormat bool(String name, boolean value);

    RowFormat arrayUInt16(String name, int[] values);

    RowFormat arrayUInt64(String name, long[] values);

    RowFormat arrayString(String name, String[] values);

    RowFormat arrayNullableFloat64(String name, double[] values);

    /**
     * A packed histogram ({@link PackedBuckets}) as two columns: {@code indexColumn Array(UInt16)} and
     * {@code countColumn Array(UInt64)}. Formats that can copy the packed bytes override this.
     */
    default RowFormat packedBuckets(String indexColumn, String countColumn, byte[] packed) {
        SparseBuckets s = PackedBuckets.unpack(packed);
        return arrayUInt16(indexColumn, s.indexes()).arrayUInt64(countColumn, s.counts());
    }
}
