package io.ioscale.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Checks every TypeSerializer of the job must pass: round trip, byte copy, snapshot and restore. */
public final class Serialization {
    private Serialization() {}

    /** Serializes and reads back {@code value}; checks nothing is left over and copy(in, out) moves the same bytes. */
    public static <T> T roundTrip(TypeSerializer<T> s, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(value, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        T back = s.deserialize(in);
        assertThat(in.available()).isZero();
        DataOutputSerializer copied = new DataOutputSerializer(64);
        s.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
        return back;
    }

    /** The serializer's snapshot, written and read back, restores an equal serializer, compatible as is. */
    public static <T> void snapshotRestoresAnEqualSerializer(TypeSerializer<T> s) throws IOException {
        TypeSerializerSnapshot<T> snap = s.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        snap.writeSnapshot(out);
        TypeSerializerSnapshot<T> read = s.snapshotConfiguration();
        read.readSnapshot(snap.getCurrentVersion(), new DataInputDeserializer(out.getCopyOfBuffer()),
                Serialization.class.getClassLoader());
        assertThat(read.restoreSerializer()).isEqualTo(s);
        assertThat(s.snapshotConfiguration().resolveSchemaCompatibility(read).isCompatibleAsIs()).isTrue();
    }
}
