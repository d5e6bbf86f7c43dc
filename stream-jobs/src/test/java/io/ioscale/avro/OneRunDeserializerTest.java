package io.ioscale.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.ioscale.records.Decoded;
import io.ioscale.records.DeadLetter;
import io.ioscale.records.IoSample;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class OneRunDeserializerTest {

    /** Decodes the record's value as "run id" (or a dead letter for "?"): the filter is what is under test. */
    static final class FakeDecoder implements KafkaRecordDeserializationSchema<Decoded<IoSample>> {
        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Decoded<IoSample>> out) {
            String run = new String(record.value());
            if (run.equals("?")) {
                out.collect(Decoded.dead(DeadLetter.of(record.topic(), record.partition(), record.offset(),
                        record.timestamp(), -1, "undecodable", record.key(), record.value())));
                return;
            }
            IoSample s = new IoSample();
            s.runId = run;
            out.collect(Decoded.of(s));
        }

        @Override
        public TypeInformation<Decoded<IoSample>> getProducedType() {
            return TypeInformation.of(new org.apache.flink.api.common.typeinfo.TypeHint<Decoded<IoSample>>() {});
        }
    }

    @Test
    void onlyTheReplayedRunsRecordsReachTheWatermarksAndWindows() throws Exception {
        OneRunDeserializer<IoSample> d = new OneRunDeserializer<>(new FakeDecoder(), s -> s.runId, "imported-1");
        List<String> out = new ArrayList<>();
        Collector<Decoded<IoSample>> sink = new Collector<>() {
            @Override
            public void collect(Decoded<IoSample> r) {
                out.add(r.isDead() ? "dead" : r.value.runId);
            }

            @Override
            public void close() {}
        };
        long offset = 0;
        for (String run : List.of("live-7", "imported-1", "?", "imported-1", "imported-10", "live-7")) {
            d.deserialize(new ConsumerRecord<>("ioscale.io_samples", 0, offset++, new byte[0], run.getBytes()), sink);
        }
        assertThat(out).containsExactly("imported-1", "imported-1");
        assertThat(d.getProducedType()).isEqualTo(new FakeDecoder().getProducedType());
    }
}
