package io.ioscale.rollups;

import io.ioscale.types.FieldSerializer;
import io.ioscale.types.SerializerTypeInfo;
import io.ioscale.types.Utf8;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link FleetPartial} (the fleet shuffle's record): run_id str ({@link Utf8}), step_index i32,
 * second_start_ms i64, then the accumulator ({@link IoAccumulatorSerializer}). Version 1.
 */
public final class FleetPartialSerializer extends FieldSerializer<FleetPartial> {
    private static final long serialVersionUID = 1L;
    public static final FleetPartialSerializer INSTANCE = new FleetPartialSerializer();

    @Override
    public FleetPartial createInstance() {
        return new FleetPartial();
    }

    @Override
    public FleetPartial copy(FleetPartial from) {
        FleetPartial p = new FleetPartial(from.runId, from.stepIndex, from.secondStartMs);
        p.acc = IoAccumulatorSerializer.INSTANCE.copy(from.acc);
        return p;
    }

    @Override
    public void serialize(FleetPartial p, DataOutputView out) throws IOException {
        Utf8.write(p.runId, out);
        out.writeInt(p.stepIndex);
        out.writeLong(p.secondStartMs);
        IoAccumulatorSerializer.INSTANCE.serialize(p.acc, out);
    }

    @Override
    public FleetPartial deserialize(DataInputView in) throws IOException {
        FleetPartial p = new FleetPartial(Utf8.read(in), in.readInt(), in.readLong());
        p.acc = IoAccumulatorSerializer.INSTANCE.deserialize(in);
        return p;
    }

    @Override
    public TypeSerializerSnapshot<FleetPartial> snapshotConfiguration() {
        return new Snapshot();
    }

    /** No configuration (layout version 1); a class of its own, as Flink restores a snapshot by class name. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<FleetPartial> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }

    /** Makes Flink use this serializer for FleetPartial everywhere (FleetPartial carries {@code @TypeInfo}). */
    public static final class Factory extends SerializerTypeInfo.Factory<FleetPartial> {
        public Factory() {
            super(FleetPartial.class, INSTANCE);
        }
    }
}
