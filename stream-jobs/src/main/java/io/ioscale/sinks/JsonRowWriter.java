package io.ioscale.sinks;

import io.ioscale.records.ColumnType;
import io.ioscale.records.RowFormat;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * Writes one JSON object per row (one line each), with the column names as keys: the Kafka alerts topic's
 * format, also accepted by ClickHouse's {@code JSONEachRow}. Hand-written (no JSON library, no reflection).
 *
 * <p>Conventions:
 * <ul>
 *   <li>timestamps are strings {@code "yyyy-MM-dd HH:mm:ss.SSS"} in UTC (what DateTime64(3, 'UTC') prints);</li>
 *   <li>a NaN or infinite double is written as {@code null}, so the output is always valid JSON, and so is a
 *       Nullable column's NULL ({@link #nullValue});</li>
 *   <li>strings are UTF-8 with {@code "}, {@code \\} and control characters escaped; {@link #bytes} writes
 *       arbitrary bytes the same way, byte for byte.</li>
 * </ul>
 * Types are not written (JSON has no UInt16); {@link RowBinaryWriter} is the typed format. Not thread-safe.
 */
public final class JsonRowWriter implements RowFormat {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private byte[] buf = new byte[1024];
    private int len;
    private boolean first;

    @Override
    public JsonRowWriter beginRow() {
        put((byte) '{');
        first = true;
        return this;
    }

    @Override
    public JsonRowWriter endRow() {
        put((byte) '}');
        put((byte) '\n');
        return this;
    }

    @Override
    public JsonRowWriter text(String name, ColumnType type, String value) {
        name(name);
        string(value);
        return this;
    }

    @Override
    public JsonRowWriter integer(String name, ColumnType type, long value) {
        name(name);
        number(value);
        return this;
    }

    @Override
    public JsonRowWriter nullValue(String name, ColumnType type) {
        name(name);
        ascii("null");
        return this;
    }

    /** Float64 and Nullable(Float64) alike: a non-finite value is null. */
    @Override
    public JsonRowWriter real(String name, ColumnType type, double value) {
        name(name);
        decimal(value);
        return this;
    }

    @Override
    public JsonRowWriter bool(String name, boolean value) {
        name(name);
        ascii(value ? "true" : "false");
        return this;
    }

    /** A DateTime64(3, 'UTC') value from epoch milliseconds, as ClickHouse prints it (not the number). */
    @Override
    public JsonRowWriter dateTime64(String name, long epochMs) {
        name(name);
        put((byte) '"');
        long sec = Math.floorDiv(epochMs, 1000);
        int ms = (int) Math.floorMod(epochMs, 1000);
        LocalDateTime t = LocalDateTime.ofEpochSecond(sec, 0, ZoneOffset.UTC);
        pad(t.getYear(), 4);
        put((byte) '-');
        pad(t.getMonthValue(), 2);
        put((byte) '-');
        pad(t.getDayOfMonth(), 2);
        put((byte) ' ');
        pad(t.getHour(), 2);
        put((byte) ':');
        pad(t.getMinute(), 2);
        put((byte) ':');
        pad(t.getSecond(), 2);
        put((byte) '.');
        pad(ms, 3);
        put((byte) '"');
        return this;
    }

    @Override
    public JsonRowWriter arrayUInt16(String name, int[] values) {
        return array(name, values.length, i -> number(values[i]));
    }

    @Override
    public JsonRowWriter arrayUInt64(String name, long[] values) {
        return array(name, values.length, i -> number(values[i]));
    }

    @Override
    public JsonRowWriter arrayString(String name, String[] values) {
        return array(name, values.length, i -> string(values[i]));
    }

    @Override
    public JsonRowWriter arrayNullableFloat64(String name, double[] values) {
        return array(name, values.length, i -> decimal(values[i]));
    }

    /** Raw bytes as a JSON string, byte for byte (see the class comment); null writes "". */
    @Override
    public JsonRowWriter bytes(String name, byte[] value) {
        name(name);
        put((byte) '"');
        if (value != null) {
            for (byte b : value) {
                escaped(b);
            }
        }
        put((byte) '"');
        return this;
    }

    public int length() {
        return len;
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(buf, len);
    }

    /** The buffer itself (valid up to {@link #length()}); no copy. */
    public byte[] buffer() {
        return buf;
    }

    public void reset() {
        len = 0;
    }

    @Override
    public String toString() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------------------------------ internals

    private void name(String name) {
        if (!first) {
            put((byte) ',');
        }
        first = false;
        put((byte) '"');
        ascii(name); // column names are ASCII identifiers
        put((byte) '"');
        put((byte) ':');
    }

    /**
     * {@code [e0,e1,...]}, element {@code i} written by {@code element}. One lambda per array, not per value; this
     * writer serves the alerts topic, not the rollup rows and their bucket arrays.
     */
    private JsonRowWriter array(String name, int length, IntConsumer element) {
        name(name);
        put((byte) '[');
        for (int i = 0; i < length; i++) {
            if (i > 0) {
                put((byte) ',');
            }
            element.accept(i);
        }
        put((byte) ']');
        return this;
    }

    /** Null writes "". */
    private void string(String s) {
        put((byte) '"');
        for (byte b : (s == null ? "" : s).getBytes(StandardCharsets.UTF_8)) {
            escaped(b);
        }
        put((byte) '"');
    }

    private void escaped(byte b) {
        if (b == '"' || b == '\\') {
            put((byte) '\\');
            put(b);
        } else if (b >= 0 && b < 0x20) { // control characters; bytes >= 0x80 pass through unchanged
            put((byte) '\\');
            put((byte) 'u');
            put((byte) '0');
            put((byte) '0');
            put(HEX[b >> 4]);
            put(HEX[b & 0xF]);
        } else {
            put(b);
        }
    }

    /** A non-finite value is null. */
    private void decimal(double v) {
        ascii(Double.isFinite(v) ? Double.toString(v) : "null");
    }

    /** Decimal digits straight into the buffer (no String per number: rows carry hundreds of bucket counts). */
    private void number(long v) {
        if (v >= 0 && v <= Integer.MAX_VALUE) {
            number((int) v);
            return;
        }
        ascii(Long.toString(v)); // rare: sums of nanoseconds, timestamps
    }

    private void number(int v) {
        int digits = v < 10 ? 1 : v < 100 ? 2 : v < 1_000 ? 3 : v < 10_000 ? 4 : v < 100_000 ? 5
                : v < 1_000_000 ? 6 : v < 10_000_000 ? 7 : v < 100_000_000 ? 8 : v < 1_000_000_000 ? 9 : 10;
        ensure(digits);
        int i = len + digits;
        len = i;
        do {
            int q = v / 10;
            buf[--i] = (byte) ('0' + (v - q * 10));
            v = q;
        } while (v != 0);
    }

    private void ascii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[len++] = (byte) s.charAt(i);
        }
    }

    private void pad(int value, int width) {
        ensure(width);
        for (int i = width - 1; i >= 0; i--) {
            buf[len + i] = (byte) ('0' + value % 10);
            value /= 10;
        }
        len += width;
    }

    private void put(byte b) {
        ensure(1);
        buf[len++] = b;
    }

    private void ensure(int extra) {
        if (len + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + extra));
        }
    }
}
