package io.ioscale.rollups;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.rollups.IoAccumulator.SourceId;
import io.ioscale.types.FieldSerializer;
import io.ioscale.types.SerializerTypeInfo;
import io.ioscale.types.Utf8;
import java.io.IOException;
import java.util.HashSet;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link IoAccumulator}: the I/O rollups' window state, and the body of every {@code FleetPartial}
 * that crosses the fleet shuffle. Fields in a fixed order; the histogram as one packed array (whatever form it
 * had in memory); the fleet's source set as a count and three strings per source. Flink's POJO serializer would go
 * through reflection, a generic (Kryo) path for the histogram and per-element serializers for the set.
 *
 * <pre>
 *   samples, ops, bytes, errors, read_ops, write_ops, read_bytes, write_bytes i64, outstanding_interval_ms f64,
 *   max_interval_ms, latency_count, latency_sum_ns, latency_min_ns, latency_max_ns i64,
 *   histogram_sum_ns, histogram_min_ns, histogram_max_ns i64, buckets: i32 length + PackedBuckets bytes,
 *   sources: i32 count (-1 = none: a per-source accumulator), then count x (host, vm, target) str ({@link Utf8})
 * </pre>
 * Version 1 (the snapshot's). {@link #copy} is deep (the heap state backend copies through it while a checkpoint
 * is written); the packed array is shared, being immutable.
 */
public final class IoAccumulatorSerializer extends FieldSerializer<IoAccumulator> {
    private static final long serialVersionUID = 1L;
    public static final IoAccumulatorSerializer INSTANCE = new IoAccumulatorSerializer();

    @Override
    public IoAccumulator createInstance() {
        return new IoAccumulator();
    }

    @Override
    public IoAccumulator copy(IoAccumulator from) {
        IoAccumulator a = new IoAccumulator();
        a.samples = from.samples;
        a.ops = from.ops;
        a.bytes = from.bytes;
        a.errors = from.errors;
        a.readOps = from.readOps;
        a.writeOps = from.writeOps;
        a.readBytes = from.readBytes;
        a.writeBytes = from.writeBytes;
        a.outstandingIntervalMs = from.outstandingIntervalMs;
        a.maxIntervalMs = from.maxIntervalMs;
        a.latencyCount = from.latencyCount;
        a.latencySumNs = from.latencySumNs;
        a.latencyMinNs = from.latencyMinNs;
        a.latencyMaxNs = from.latencyMaxNs;
        a.buckets = from.buckets.copy();
        a.histogramSumNs = from.histogramSumNs;
        a.histogramMinNs = from.histogramMinNs;
        a.histogramMaxNs = from.histogramMaxNs;
        a.sources = from.sources == null ? null : new HashSet<>(from.sources);
        return a;
    }

    @Override
    public void serialize(IoAccumulator a, DataOutputView out) throws IOException {
        out.writeLong(a.samples);
        out.writeLong(a.ops);
        out.writeLong(a.bytes);
        out.writeLong(a.errors);
        out.writeLong(a.readOps);
        out.writeLong(a.writeOps);
        out.writeLong(a.readBytes);
        out.writeLong(a.writeBytes);
        out.writeDouble(a.outstandingIntervalMs);
        out.writeLong(a.maxIntervalMs);
        out.writeLong(a.latencyCount);
        out.writeLong(a.latencySumNs);
        out.writeLong(a.latencyMinNs);
        out.writeLong(a.latencyMaxNs);
        out.writeLong(a.histogramSumNs);
        out.writeLong(a.histogramMinNs);
        out.writeLong(a.histogramMaxNs);
        byte[] packed = a.buckets.toPacked();
        out.writeInt(packed.length);
        out.write(packed);
        if (a.sources == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(a.sources.size());
            for (SourceId s : a.sources) {
                Utf8.write(s.host(), out);
                Utf8.write(s.vm(), out);
                Utf8.write(s.target(), out);
            }
        }
    }

    @Override
    public IoAccumulator deserialize(DataInputView in) throws IOException {
        IoAccumulator a = new IoAccumulator();
        a.samples = in.readLong();
        a.ops = in.readLong();
        a.bytes = in.readLong();
        a.errors = in.readLong();
        a.readOps = in.readLong();
        a.writeOps = in.readLong();
        a.readBytes = in.readLong();
        a.writeBytes = in.readLong();
        a.outstandingIntervalMs = in.readDouble();
        a.maxIntervalMs = in.readLong();
        a.latencyCount = in.readLong();
        a.latencySumNs = in.readLong();
        a.latencyMinNs = in.readLong();
        a.latencyMaxNs = in.readLong();
        a.histogramSumNs = in.readLong();
        a.histogramMinNs = in.readLong();
        a.histogramMaxNs = in.readLong();
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt IoAccumulator: histogram of " + n + " bytes");
        }
        BucketCounts buckets = new BucketCounts();
        if (n > 0) {
            byte[] packed = new byte[n];
            in.readFully(packed);
            buckets.add(packed);
        }
        a.buckets = buckets;
        int sources = in.readInt();
        if (sources >= 0) {
            a.sources = new HashSet<>(Math.max(16, sources * 2));
            for (int i = 0; i < sources; i++) {
                a.sources.add(new SourceId(Utf8.read(in), Utf8.read(in),
                        Utf8.read(in)));
            }
        }
        return a;
    }

    @Override
    public TypeSerializerSnapshot<IoAccumulator> snapshotConfiguration() {
        return new Snapshot();
    }

    /** No configuration (layout version 1); a class of its own, as Flink restores a snapshot by class name. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<IoAccumulator> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }

    /** Makes Flink use this serializer for IoAccumulator everywhere (IoAccumulator carries {@code @TypeInfo}). */
    public static final class Factory extends SerializerTypeInfo.Factory<IoAccumulator> {
        public Factory() {
            super(IoAccumulator.class, INSTANCE);
        }
    }
}
