package io.ioscale.records;

import static io.ioscale.testing.Serialization.roundTrip;
import static io.ioscale.testing.Serialization.snapshotRestoresAnEqualSerializer;
import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.testing.TestData;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.Test;

/** IoSample's own serializer: round trip, deep copy, its snapshot, and that Flink picks it. */
class IoSampleSerializerTest {

    @Test
    void ioSampleRoundTripsEveryFieldTheRollupsUse() throws IOException {
        IoSample s = TestData.serializedSample();
        assertThat(roundTrip(IoSampleSerializer.INSTANCE, s)).isEqualTo(s);
        IoSample other = new IoSample();
        other.direction = "TRIM"; // not an enum symbol the job knows: kept as text
        assertThat(roundTrip(IoSampleSerializer.INSTANCE, other)).isEqualTo(other);
        assertThat(IoSampleSerializer.INSTANCE.copy(s)).isEqualTo(s).isNotSameAs(s);
        snapshotRestoresAnEqualSerializer(IoSampleSerializer.INSTANCE);
    }

    @Test
    void flinkUsesItWhereverItMeetsTheType() {
        assertThat(TypeInformation.of(IoSample.class).createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(IoSampleSerializer.class);
        // ... also as a field of the sources' records (the split operator's input).
        assertThat(TypeInformation.of(new TypeHint<Decoded<IoSample>>() {}).toString()).contains("IoSampleSerializer");
    }
}
