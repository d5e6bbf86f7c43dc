package io.ioscale.records;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.types.FieldSerializer;
import io.ioscale.types.SerializerTypeInfo;
import io.ioscale.types.Utf8;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link IoSample}, the record every sample shuffle carries: fields written directly, in a fixed
 * order, with the histogram as one length-prefixed byte array. Flink's POJO serializer would read and write each
 * field through reflection, boxing every primitive.
 *
 * <pre>
 *   ts_ms i64, interval_ms i32, run_id str, step_index i32, host str, vm str, target str,
 *   direction u8 (0 READ, 1 WRITE, 2 other: then str), ops i64, bytes i64, outstanding_ios f64, errors i64,
 *   latency_count i64, latency_sum_ns i64, latency_min_ns i64, latency_max_ns i64, latency_hist_scheme i32,
 *   latency_buckets: i32 length + bytes (PackedBuckets)        str = i32 length + UTF-8 ({@link Utf8})
 * </pre>
 * Version 1 (the snapshot's); a layout change needs a new snapshot version that still reads this one.
 * {@link IoSample#decodedBuckets} is transient and not written.
 */
public final class IoSampleSerializer extends FieldSerializer<IoSample> {
    private static final long serialVersionUID = 1L;
    public static final IoSampleSerializer INSTANCE = new IoSampleSerializer();

    private static final int READ = 0;
    private static final int WRITE = 1;
    private static final int OTHER = 2;

    @Override
    public IoSample createInstance() {
        return new IoSample();
    }

    /** A field-by-field copy; the packed histogram is shared (immutable once packed). */
    @Override
    public IoSample copy(IoSample from) {
        IoSample s = new IoSample();
        s.tsMs = from.tsMs;
        s.intervalMs = from.intervalMs;
        s.runId = from.runId;
        s.stepIndex = from.stepIndex;
        s.host = from.host;
        s.vm = from.vm;
        s.target = from.target;
        s.direction = from.direction;
        s.ops = from.ops;
        s.bytes = from.bytes;
        s.outstandingIos = from.outstandingIos;
        s.errors = from.errors;
        s.latencyCount = from.latencyCount;
        s.latencySumNs = from.latencySumNs;
        s.latencyMinNs = from.latencyMinNs;
        s.latencyMaxNs = from.latencyMaxNs;
        s.latencyHistScheme = from.latencyHistScheme;
        s.latencyBuckets = from.latencyBuckets;
        return s;
    }

    @Override
    public void serialize(IoSample s, DataOutputView out) throws IOException {
        out.writeLong(s.tsMs);
        out.writeInt(s.intervalMs);
        Utf8.write(s.runId, out);
        out.writeInt(s.stepIndex);
        Utf8.write(s.host, out);
        Utf8.write(s.vm, out);
        Utf8.write(s.target, out);
        if ("READ".equals(s.direction)) {
            out.writeByte(READ);
        } else if ("WRITE".equals(s.direction)) {
            out.writeByte(WRITE);
        } else {
            out.writeByte(OTHER);
            Utf8.write(s.direction, out);
        }
        out.writeLong(s.ops);
        out.writeLong(s.bytes);
        out.writeDouble(s.outstandingIos);
        out.writeLong(s.errors);
        out.writeLong(s.latencyCount);
        out.writeLong(s.latencySumNs);
        out.writeLong(s.latencyMinNs);
        out.writeLong(s.latencyMaxNs);
        out.writeInt(s.latencyHistScheme);
        out.writeInt(s.latencyBuckets.length);
        out.write(s.latencyBuckets);
    }

    @Override
    public IoSample deserialize(DataInputView in) throws IOException {
        IoSample s = new IoSample();
        s.tsMs = in.readLong();
        s.intervalMs = in.readInt();
        s.runId = Utf8.read(in);
        s.stepIndex = in.readInt();
        s.host = Utf8.read(in);
        s.vm = Utf8.read(in);
        s.target = Utf8.read(in);
        int direction = in.readByte();
        s.direction = switch (direction) {
            case READ -> "READ";
            case WRITE -> "WRITE";
            case OTHER -> Utf8.read(in);
            default -> throw new IOException("corrupt IoSample: direction code " + direction);
        };
        s.ops = in.readLong();
        s.bytes = in.readLong();
        s.outstandingIos = in.readDouble();
        s.errors = in.readLong();
        s.latencyCount = in.readLong();
        s.latencySumNs = in.readLong();
        s.latencyMinNs = in.readLong();
        s.latencyMaxNs = in.readLong();
        s.latencyHistScheme = in.readInt();
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt IoSample: histogram of " + n + " bytes");
        }
        if (n > 0) {
            byte[] packed = new byte[n];
            in.readFully(packed);
            s.latencyBuckets = packed;
        }
        return s;
    }

    @Override
    public TypeSerializerSnapshot<IoSample> snapshotConfiguration() {
        return new Snapshot();
    }

    /** No configuration (layout version 1); a class of its own, as Flink restores a snapshot by class name. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<IoSample> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }

    /** Makes Flink use this serializer for IoSample everywhere (IoSample carries {@code @TypeInfo}). */
    public static final class Factory extends SerializerTypeInfo.Factory<IoSample> {
        public Factory() {
            super(IoSample.class, INSTANCE);
        }
    }
}
