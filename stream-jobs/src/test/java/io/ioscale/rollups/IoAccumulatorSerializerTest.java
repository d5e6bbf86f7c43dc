package io.ioscale.rollups;

import static io.ioscale.testing.Serialization.roundTrip;
import static io.ioscale.testing.Serialization.snapshotRestoresAnEqualSerializer;
import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.IoSample;
import io.ioscale.rollups.IoAccumulator.SourceId;
import io.ioscale.testing.TestData;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.Test;

/** The rollups' own serializers (accumulator, fleet partial): round trips, deep copies, snapshots, Flink's pick. */
class IoAccumulatorSerializerTest {

    @Test
    void flinkUsesTheJobsSerializersWhereverItMeetsTheTypes() {
        SerializerConfigImpl config = new SerializerConfigImpl();
        assertThat(TypeInformation.of(IoAccumulator.class).createSerializer(config))
                .isInstanceOf(IoAccumulatorSerializer.class);
        assertThat(TypeInformation.of(FleetPartial.class).createSerializer(config))
                .isInstanceOf(FleetPartialSerializer.class);
    }

    @Test
    void accumulatorsAndPartialsRoundTripAndCopyDeeply() throws IOException {
        IoAccumulator perSource = new IoAccumulator();
        perSource.add(TestData.serializedSample());
        IoAccumulator back = roundTrip(IoAccumulatorSerializer.INSTANCE, perSource);
        assertThat(back.sources).isNull();
        assertThat(back.toStats(1_000)).usingRecursiveComparison().isEqualTo(perSource.toStats(1_000));

        FleetPartial p = new FleetPartial("run", 3, 12_000);
        p.acc.add(TestData.serializedSample());
        IoSample second = TestData.serializedSample();
        second.vm = "vm8";
        p.acc.add(second); // a second histogram: the dense form
        FleetPartial pb = roundTrip(FleetPartialSerializer.INSTANCE, p);
        assertThat(pb.runId).isEqualTo("run");
        assertThat(pb.stepIndex).isEqualTo(3);
        assertThat(pb.secondStartMs).isEqualTo(12_000);
        assertThat(pb.acc.sources).containsExactlyInAnyOrder(new SourceId("h1", "vm7", "sdb"),
                new SourceId("h1", "vm8", "sdb"));
        assertThat(pb.acc.toStats(1_000)).usingRecursiveComparison().isEqualTo(p.acc.toStats(1_000));

        IoAccumulator copy = IoAccumulatorSerializer.INSTANCE.copy(p.acc);
        p.acc.add(TestData.serializedSample()); // changing the original must not change the copy
        assertThat(copy.samples).isEqualTo(2);
        assertThat(copy.buckets.toSparse()).isNotEqualTo(p.acc.buckets.toSparse());
        snapshotRestoresAnEqualSerializer(IoAccumulatorSerializer.INSTANCE);
        snapshotRestoresAnEqualSerializer(FleetPartialSerializer.INSTANCE);
    }
}
