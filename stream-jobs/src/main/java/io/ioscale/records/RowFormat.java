package io.ioscale.records;

import static io.ioscale.records.ColumnType.DATETIME64;
import static io.ioscale.records.ColumnType.FLOAT64;
import static io.ioscale.records.ColumnType.INT32;
import static io.ioscale.records.ColumnType.INT64;
import static io.ioscale.records.ColumnType.LOW_CARDINALITY_STRING;
import static io.ioscale.records.ColumnType.NULLABLE_FLOAT64;
import static io.ioscale.records.ColumnType.NULLABLE_UINT64;
import static io.ioscale.records.ColumnType.STRING;
import static io.ioscale.records.ColumnType.UINT16;
import static io.ioscale.records.ColumnType.UINT32;
import static io.ioscale.records.ColumnType.UINT64;
import static io.ioscale.records.ColumnType.UINT8;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;

/**
 * How a result row writes its columns: by name and by exact ClickHouse type, in table order. Two formats
 * implement it: {@link RowBinaryWriter} (what the ClickHouse sink inserts: RowBinaryWithNamesAndTypes, so the
 * server checks every name and type against the table) and {@link JsonRowWriter} (the Kafka alerts topic).
 *
 * <p>A row calls the typed methods ({@code int32}, {@code nullableFloat64}, ...), which name each column's
 * {@link ColumnType} here, once; a format implements one method per kind of Java value ({@code integer},
 * {@code text}, {@code real}) and decides from the type how to encode it.
 *
 * <p>{@code nullableFloat64} and {@code arrayNullableFloat64} write NaN and infinities as NULL;
 * {@code nullableUInt64} writes NULL when told the value is absent.
 */
public interface RowFormat {

    RowFormat beginRow();

    RowFormat endRow();

    /**
     * An integer column (Int32, UInt8 .. UInt64, Nullable(UInt64) not NULL, or DateTime64 as epoch ms); the value
     * fits the type.
     */
    RowFormat integer(String name, ColumnType type, long value);

    /** NULL in a Nullable column ({@code type} is one of the Nullable types). */
    RowFormat nullValue(String name, ColumnType type);

    /** A String or LowCardinality(String) column (null writes ""). */
    RowFormat text(String name, ColumnType type, String value);

    /** A Float64 or Nullable(Float64) column. */
    RowFormat real(String name, ColumnType type, double value);

    /** A String column holding raw bytes (null writes ""). */
    RowFormat bytes(String name, byte[] value);

    RowFormat bool(String name, boolean value);

    RowFormat arrayUInt16(String name, int[] values);

    RowFormat arrayUInt64(String name, long[] values);

    RowFormat arrayString(String name, String[] values);

    RowFormat arrayNullableFloat64(String name, double[] values);

    // The typed columns a row writes, and the ClickHouse type each stands for. DateTime64(3, 'UTC') is epoch ms.
    default RowFormat dateTime64(String name, long epochMs) { return integer(name, DATETIME64, epochMs); }
    default RowFormat string(String name, String value) { return text(name, STRING, value); }
    default RowFormat lowCardinality(String name, String value) { return text(name, LOW_CARDINALITY_STRING, value); }
    default RowFormat int32(String name, int value) { return integer(name, INT32, value); }
    default RowFormat uint8(String name, int value) { return integer(name, UINT8, value); }
    default RowFormat uint16(String name, int value) { return integer(name, UINT16, value); }
    default RowFormat uint32(String name, long value) { return integer(name, UINT32, value); }
    default RowFormat int64(String name, long value) { return integer(name, INT64, value); }
    default RowFormat uint64(String name, long value) { return integer(name, UINT64, value); }
    default RowFormat float64(String name, double value) { return real(name, FLOAT64, value); }
    default RowFormat nullableFloat64(String name, double value) { return real(name, NULLABLE_FLOAT64, value); }
    default RowFormat nullableUInt64(String name, long value, boolean isNull) {
        return isNull ? nullValue(name, NULLABLE_UINT64) : integer(name, NULLABLE_UINT64, value);
    }

    /**
     * A packed histogram ({@link PackedBuckets}) as two columns: {@code indexColumn Array(UInt16)} and
     * {@code countColumn Array(UInt64)}. Formats that can copy the packed bytes override this.
     */
    default RowFormat packedBuckets(String indexColumn, String countColumn, byte[] packed) {
        SparseBuckets s = PackedBuckets.unpack(packed);
        return arrayUInt16(indexColumn, s.indexes()).arrayUInt64(countColumn, s.counts());
    }
}
