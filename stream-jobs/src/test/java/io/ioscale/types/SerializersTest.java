package io.ioscale.types;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.functions.IoAccumulator;
import io.ioscale.functions.IoAccumulator.SourceId;
import io.ioscale.records.IoSample;
import static io.ioscale.testing.Serialization.roundTrip;
import static io.ioscale.testing.Serialization.snapshotRestoresAnEqualSerializer;

import io.ioscale.records.Decoded;
import io.ioscale.rollups.FleetPartial;
import io.ioscale.testing.TestData;
import java.io.IOException;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.junit.jupiter.api.Test;

/** The job's own serializers: round trips, deep copies, their snapshots, and that Flink picks them. */
class SerializersTest {

    private static IoSample sample() {
        IoSample s = TestData.io("run", 3, 12_000, "h1", "vm7", "sdb", "WRITE", TestData.latencies(1, 500, 90_000),
                8192, 3.5);
        s.errors = 2;
        return s;
    }

    @Test
    void ioSampleRoundTripsEveryFieldTheRollupsUse() throws IOException {
        IoSample s = sample();
        assertThat(roundTrip(IoSampleSerializer.INSTANCE, s)).isEqualTo(s);
        IoSample other = new IoSample();
        other.direction = "TRIM"; // not an enum symbol the job knows: kept as text
        assertThat(roundTrip(IoSampleSerializer.INSTANCE, other)).isEqualTo(other);
        assertThat(IoSampleSerializer.INSTANCE.copy(s)).isEqualTo(s).isNotSameAs(s);
        snapshotRestoresAnEqualSerializer(IoSampleSerializer.INSTANCE);
    }

    @Test
    void flinkUsesTheJobsSerializersWhereverItMeetsTheTypes() {
        SerializerConfigImpl config = new SerializerConfigImpl();
        assertThat(TypeInformation.of(IoSample.class).createSerializer(config)).isInstanceOf(IoSampleSerializer.class);
        assertThat(TypeInformation.of(IoAccumulator.class).createSerializer(config))
                .isInstanceOf(IoAccumulatorSerializer.class);
        assertThat(TypeInformation.of(FleetPartial.class).createSerializer(config))
                .isInstanceOf(FleetPartialSerializer.class);
        // ... also as a field of the sources' records (the split operator's input).
        assertThat(TypeInformation.of(new TypeHint<Decoded<IoSample>>() {}).toString()).contains("IoSampleSerializer");
    }

    @Test
    void accumulatorsAndPartialsRoundTripAndCopyDeeply() throws IOException {
        IoAccumulator perSource = new IoAccumulator();
        perSource.add(sample());
        IoAccumulator back = roundTrip(IoAccumulatorSerializer.INSTANCE, perSource);
        assertThat(back.sources).isNull();
        assertThat(back.toStats(1_000)).usingRecursiveComparison().isEqualTo(perSource.toStats(1_000));

        FleetPartial p = new FleetPartial("run", 3, 12_000);
        p.acc.add(sample());
        IoSample second = sample();
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
        p.acc.add(sample()); // changing the original must not change the copy
        assertThat(copy.samples).isEqualTo(2);
        assertThat(copy.buckets.toSparse()).isNotEqualTo(p.acc.buckets.toSparse());
        snapshotRestoresAnEqualSerializer(IoAccumulatorSerializer.INSTANCE);
        snapshotRestoresAnEqualSerializer(FleetPartialSerializer.INSTANCE);
    }
}
