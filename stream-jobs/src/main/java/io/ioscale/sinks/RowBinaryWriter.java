package io.ioscale.sinks;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.records.ColumnType;
import io.ioscale.records.RowFormat;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Rows of one table in ClickHouse's {@code RowBinaryWithNamesAndTypes} format: a header (column count, names,
 * types) and then each row's values, little-endian, in column order. Why not JSONEachRow: a 1 s rollup row
 * carries hundreds of bucket indexes and counts; as decimal text they would be the largest cost of the hottest
 * operator and of ClickHouse's parsing. With names and types in the header the server
 * checks both against the table (input_format_with_names_use_header / _with_types_use_header, on by default), so
 * a row class and its DDL cannot drift apart silently.
 *
 * <pre>
 *   header   varint N, N x (varint length, name bytes), N x (varint length, type name bytes)
 *   String   varint length, bytes            Int32/UInt16/UInt8 .. Int64/UInt64   fixed width, little-endian
 *   Float64  IEEE 754, little-endian         Nullable(T)   1 byte (1 = NULL, 0 = a value), then T unless NULL
 *   Bool     1 byte                          Array(T)      varint length, then the elements
 *   DateTime64(3, 'UTC')   Int64 of milliseconds
 * </pre>
 * The header is taken from the first row written; every later row must write the same columns (checked).
 * Not thread-safe.
 */
public final class RowBinaryWriter implements RowFormat {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] buf = new byte[4096];
    private int len;
    private final List<String> names = new ArrayList<>();
    private final List<String> types = new ArrayList<>();
    private boolean headerKnown;
    private int column;

    @Override
    public RowFormat beginRow() {
        column = 0;
        return this;
    }

    @Override
    public RowFormat endRow() {
        if (!headerKnown) {
            headerKnown = true;
        } else if (column != names.size()) {
            throw new IllegalStateException("row wrote " + column + " columns, the first row " + names.size());
        }
        return this;
    }

    private void col(String name, ColumnType type) {
        if (!headerKnown) {
            names.add(name);
            types.add(type.sql());
        } else {
            String expected = names.get(column);
            if (expected != name && !expected.equals(name)) { // literals: usually the same instance
                throw new IllegalStateException("column " + column + " is " + expected + ", row wrote " + name);
            }
        }
        column++;
    }

    @Override
    public RowFormat integer(String name, ColumnType type, long value) {
        col(name, type);
        if (type == ColumnType.NULLABLE_UINT64) {
            put((byte) 0); // not NULL
        }
        putFixed(value, switch (type) {
            case UINT8 -> 1;
            case UINT16 -> 2;
            case INT32, UINT32 -> 4;
            default -> 8; // Int64, UInt64, DateTime64
        });
        return this;
    }

    @Override
    public RowFormat nullValue(String name, ColumnType type) {
        if (!type.sql().startsWith("Nullable(")) {
            throw new IllegalArgumentException("column " + name + " is " + type.sql() + ": it cannot hold NULL");
        }
        col(name, type);
        put((byte) 1);
        return this;
    }

    @Override
    public RowFormat text(String name, ColumnType type, String value) {
        col(name, type);
        putString(value);
        return this;
    }

    @Override
    public RowFormat real(String name, ColumnType type, double value) {
        col(name, type);
        if (type == ColumnType.NULLABLE_FLOAT64) {
            putNullableDouble(value);
        } else {
            putFixed(Double.doubleToRawLongBits(value), 8);
        }
        return this;
    }

    @Override
    public RowFormat bytes(String name, byte[] value) {
        col(name, ColumnType.STRING);
        byte[] v = value == null ? new byte[0] : value;
        putVarint(v.length);
        putBytes(v);
        return this;
    }

    @Override
    public RowFormat bool(String name, boolean value) {
        col(name, ColumnType.BOOL);
        putFixed(value ? 1 : 0, 1);
        return this;
    }

    @Override
    public RowFormat arrayUInt16(String name, int[] values) {
        col(name, ColumnType.ARRAY_UINT16);
        putVarint(values.length);
        ensure(2 * values.length);
        for (int v : values) {
            buf[len++] = (byte) v;
            buf[len++] = (byte) (v >>> 8);
        }
        return this;
    }

    @Override
    public RowFormat arrayUInt64(String name, long[] values) {
        col(name, ColumnType.ARRAY_UINT64);
        putVarint(values.length);
        ensure(8 * values.length);
        byte[] b = buf;
        int i = len;
        for (long v : values) {
            LONG_LE.set(b, i, v);
            i += 8;
        }
        len = i;
        return this;
    }

    @Override
    public RowFormat arrayString(String name, String[] values) {
        col(name, ColumnType.ARRAY_STRING);
        putVarint(values.length);
        for (String v : values) {
            putString(v);
        }
        return this;
    }

    @Override
    public RowFormat arrayNullableFloat64(String name, double[] values) {
        col(name, ColumnType.ARRAY_NULLABLE_FLOAT64);
        putVarint(values.length);
        for (double v : values) {
            putNullableDouble(v);
        }
        return this;
    }

    /**
     * The packed indexes are already UInt16 little-endian: one copy. The counts widen from their packed width to
     * UInt64 in one loop, with no int[]/long[] in between.
     */
    @Override
    public RowFormat packedBuckets(String indexColumn, String countColumn, byte[] packed) {
        int n = PackedBuckets.size(packed);
        col(indexColumn, ColumnType.ARRAY_UINT16);
        putVarint(n);
        ensure(2 * n);
        if (n > 0) {
            System.arraycopy(packed, PackedBuckets.INDEXES_AT, buf, len, 2 * n);
            len += 2 * n;
        }
        col(countColumn, ColumnType.ARRAY_UINT64);
        putVarint(n);
        ensure(8 * n);
        len = PackedBuckets.putCountsAsUInt64(packed, n, buf, len);
        return this;
    }

    /** Column names, from the first row. */
    public List<String> names() {
        return names;
    }

    /** Column types, from the first row. */
    public List<String> types() {
        return types;
    }

    /** The header for the rows written so far (empty before the first row). */
    public byte[] header() {
        RowBinaryWriter h = new RowBinaryWriter();
        h.putVarint(names.size());
        for (String n : names) {
            h.putString(n);
        }
        for (String t : types) {
            h.putString(t);
        }
        return Arrays.copyOf(h.buf, h.len);
    }

    /** The row data (valid up to {@link #length()}), without the header. */
    public byte[] buffer() {
        return buf;
    }

    public int length() {
        return len;
    }

    /** Empties the rows; keeps the header, since a writer serves one table. */
    public void reset() {
        len = 0;
    }

    // ------------------------------------------------------------------------------------------ encoding

    private void putNullableDouble(double v) {
        ensure(9);
        if (Double.isFinite(v)) {
            buf[len++] = 0;
            putLongUnchecked(Double.doubleToRawLongBits(v));
        } else {
            buf[len++] = 1;
        }
    }

    private void put(byte b) {
        ensure(1);
        buf[len++] = b;
    }

    private void putString(String s) {
        byte[] b = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        putVarint(b.length);
        putBytes(b);
    }

    private void putBytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, len, b.length);
        len += b.length;
    }

    private void putVarint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buf[len++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[len++] = (byte) v;
    }

    /** The low {@code bytes} bytes of {@code v}, little-endian (all 8 are stored; the rest is overwritten next). */
    private void putFixed(long v, int bytes) {
        ensure(8);
        LONG_LE.set(buf, len, v);
        len += bytes;
    }

    private void putLongUnchecked(long v) {
        LONG_LE.set(buf, len, v);
        len += 8;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }
}
