package io.ioscale.testing;

import io.ioscale.records.IoSample;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

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
}
