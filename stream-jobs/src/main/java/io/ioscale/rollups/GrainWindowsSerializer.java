package io.ioscale.rollups;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link GrainWindows} (the per-key state of a {@link GrainRollupOperator}), around the
 * accumulator's serializer.
 *
 * <pre>
 *   timer_ms i64, n i32, then n x (length_ms i64, start_ms i64, fired bool, accumulator)
 * </pre>
 * Layout version 1 (the snapshot's outer version). {@link #copy(GrainWindows)} copies the windows and shares their
 * accumulators, which both copies then copy before changing one ({@link GrainWindows#writable}): the heap state
 * backend copies an entry through it before a record changes it while a checkpoint is being written, and most of
 * an entry's accumulators (fired windows) never change again.
 */
public final class GrainWindowsSerializer<ACC> extends TypeSerializer<GrainWindows<ACC>> {
    private static final long serialVersionUID = 1L;

    private final TypeSerializer<ACC> accumulator;

    public GrainWindowsSerializer(TypeSerializer<ACC> accumulator) {
        this.accumulator = accumulator;
    }

    TypeSerializer<ACC> accumulatorSerializer() {
        return accumulator;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<GrainWindows<ACC>> duplicate() {
        TypeSerializer<ACC> d = accumulator.duplicate();
        return d == accumulator ? this : new GrainWindowsSerializer<>(d);
    }

    @Override
    public GrainWindows<ACC> createInstance() {
        return new GrainWindows<>();
    }

    @Override
    public GrainWindows<ACC> copy(GrainWindows<ACC> from) {
        GrainWindows<ACC> w = new GrainWindows<>();
        for (int i = 0; i < from.size; i++) {
            int j = w.add(from.lengthMs[i], from.startMs[i], from.accumulator(i));
            w.fired[j] = from.fired[i];
            w.shown[j] = from.shown[i];
            w.shared[j] = true;
            from.shared[i] = true;
        }
        w.timerMs = from.timerMs;
        w.earlyTimerMs = from.earlyTimerMs;
        return w;
    }

    @Override
    public GrainWindows<ACC> copy(GrainWindows<ACC> from, GrainWindows<ACC> reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(GrainWindows<ACC> w, DataOutputView out) throws IOException {
        out.writeLong(w.timerMs);
        out.writeInt(w.size);
        for (int i = 0; i < w.size; i++) {
            out.writeLong(w.lengthMs[i]);
            out.writeLong(w.startMs[i]);
            out.writeBoolean(w.fired[i]);
            accumulator.serialize(w.accumulator(i), out);
        }
    }

    @Override
    public GrainWindows<ACC> deserialize(DataInputView in) throws IOException {
        GrainWindows<ACC> w = new GrainWindows<>();
        w.timerMs = in.readLong();
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            long length = in.readLong();
            long start = in.readLong();
            boolean fired = in.readBoolean();
            int j = w.add(length, start, accumulator.deserialize(in));
            w.fired[j] = fired;
        }
        return w;
    }

    @Override
    public GrainWindows<ACC> deserialize(GrainWindows<ACC> reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GrainWindowsSerializer<?> s && accumulator.equals(s.accumulator);
    }

    @Override
    public int hashCode() {
        return accumulator.hashCode() + 17;
    }

    @Override
    public TypeSerializerSnapshot<GrainWindows<ACC>> snapshotConfiguration() {
        return new Snapshot<>(this);
    }

    /** Outer layout version 1; the accumulator's own snapshot decides its compatibility. */
    public static final class Snapshot<ACC>
            extends CompositeTypeSerializerSnapshot<GrainWindows<ACC>, GrainWindowsSerializer<ACC>> {
        private static final int VERSION = 1;

        public Snapshot() {}

        Snapshot(GrainWindowsSerializer<ACC> serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return VERSION;
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(GrainWindowsSerializer<ACC> outer) {
            return new TypeSerializer<?>[] {outer.accumulator};
        }

        @Override
        @SuppressWarnings("unchecked")
        protected GrainWindowsSerializer<ACC> createOuterSerializerWithNestedSerializers(TypeSerializer<?>[] nested) {
            return new GrainWindowsSerializer<>((TypeSerializer<ACC>) nested[0]);
        }
    }
}
