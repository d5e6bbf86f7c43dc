package io.ioscale.testing;

import io.ioscale.records.IoSample;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.ResolvingDecoder;

/** Avro records and Confluent-framed messages as the collectors write them, for the decoder tests and the bench. */
public final class AvroFrames {
    private AvroFrames() {}

    /** Magic byte 0, the schema id (4 bytes, big-endian), then the record in {@code writer}'s binary encoding. */
    public static byte[] frame(int schemaId, Schema writer, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(writer).write(record, enc);
        enc.flush();
        return out.toByteArray();
    }

    /** A record of {@code schema} with every field at its default (null where it has none). */
    public static GenericRecord withDefaults(Schema schema) {
        GenericRecord r = new GenericData.Record(schema);
        for (Schema.Field f : schema.getFields()) {
            r.put(f.name(), f.hasDefaultValue() ? GenericData.get().getDefaultValue(f) : null);
        }
        return r;
    }

    public static GenericData.EnumSymbol symbol(Schema record, String field, String symbol) {
        return new GenericData.EnumSymbol(record.getField(field).schema(), symbol);
    }

    /** {@code s} as an IoSample record of {@code schema}; the fields IoSample does not carry at their defaults. */
    public static GenericRecord ioRecord(Schema schema, IoSample s) {
        GenericRecord r = withDefaults(schema);
        r.put("ts_ms", s.tsMs);
        r.put("interval_ms", s.intervalMs);
        r.put("run_id", s.runId);
        r.put("step_index", s.stepIndex);
        r.put("host", s.host);
        r.put("vm", s.vm);
        r.put("target", s.target);
        r.put("direction", symbol(schema, "direction", s.direction));
        r.put("ops", s.ops);
        r.put("bytes", s.bytes);
        r.put("outstanding_ios", s.outstandingIos);
        r.put("errors", s.errors);
        r.put("latency_count", s.latencyCount);
        r.put("latency_sum_ns", s.latencySumNs);
        r.put("latency_min_ns", s.latencyMinNs);
        r.put("latency_max_ns", s.latencyMaxNs);
        r.put("latency_hist_scheme", s.latencyHistScheme);
        r.put("latency_bucket_index", Arrays.stream(s.buckets().indexes()).boxed().toList());
        r.put("latency_bucket_count", Arrays.stream(s.buckets().counts()).boxed().toList());
        return r;
    }

    /** What a length prefix in a body counts: {@link #lengthPrefixes}. */
    public enum Prefix { STRING, BYTES, ARRAY, MAP, END }

    /**
     * Where, in {@code frame} (a record written with {@code writer}), every length prefix is: string, bytes and
     * map-key lengths, the item count opening each array and map, and the 0 that closes it ({@link Prefix#END}),
     * found by reading the frame back and noting the position before each such value.
     */
    public static SortedMap<Integer, Prefix> lengthPrefixes(Schema writer, byte[] frame) {
        int headerSize = 5;
        BinaryDecoder in = DecoderFactory.get().binaryDecoder(frame, headerSize, frame.length - headerSize, null);
        SortedMap<Integer, Prefix> out = new TreeMap<>();
        class Recorder extends GenericDatumReader<Object> {
            Recorder() {
                super(writer);
            }

            int position() {
                try {
                    return frame.length - in.inputStream().available();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            protected Object readString(Object old, Schema expected, Decoder d) throws IOException {
                out.putIfAbsent(position(), Prefix.STRING);
                return super.readString(old, expected, d);
            }

            @Override
            protected Object readMapKey(Object old, Schema expected, Decoder d) throws IOException {
                out.putIfAbsent(position(), Prefix.STRING);
                return super.readMapKey(old, expected, d);
            }

            @Override
            protected Object readBytes(Object old, Schema expected, Decoder d) throws IOException {
                out.putIfAbsent(position(), Prefix.BYTES);
                return super.readBytes(old, expected, d);
            }

            @Override
            protected Object readArray(Object old, Schema expected, ResolvingDecoder d) throws IOException {
                out.put(position(), Prefix.ARRAY);
                Object array = super.readArray(old, expected, d);
                out.putIfAbsent(position() - 1, Prefix.END);
                return array;
            }

            @Override
            protected Object readMap(Object old, Schema expected, ResolvingDecoder d) throws IOException {
                out.put(position(), Prefix.MAP);
                Object map = super.readMap(old, expected, d);
                out.putIfAbsent(position() - 1, Prefix.END);
                return map;
            }
        }
        try {
            new Recorder().read(null, in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** {@code frame} with the Avro varint (zig-zag long) at {@code offset} replaced by {@code value}'s. */
    public static byte[] withVarint(byte[] frame, int offset, long value) {
        int end = offset;
        while ((frame[end] & 0x80) != 0) {
            end++;
        }
        end++;
        byte[] varint = varint(value);
        byte[] out = new byte[frame.length - (end - offset) + varint.length];
        System.arraycopy(frame, 0, out, 0, offset);
        System.arraycopy(varint, 0, out, offset, varint.length);
        System.arraycopy(frame, end, out, offset + varint.length, frame.length - end);
        return out;
    }

    /** Avro's encoding of a long: zig-zag, then 7 bits a byte, least significant first. */
    public static byte[] varint(long value) {
        long z = (value << 1) ^ (value >> 63);
        byte[] buf = new byte[10];
        int n = 0;
        while ((z & ~0x7FL) != 0) {
            buf[n++] = (byte) ((z & 0x7F) | 0x80);
            z >>>= 7;
        }
        buf[n++] = (byte) z;
        return Arrays.copyOf(buf, n);
    }
}
