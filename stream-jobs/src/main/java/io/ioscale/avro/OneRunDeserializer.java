package io.ioscale.avro;

import io.ioscale.records.Decoded;
import java.io.IOException;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.flink.util.function.SerializableFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Replay mode ({@code --replay-run}): passes on only the records of one run. It sits in the Kafka source's
 * deserializer, so other runs' records never reach the watermark generator: the run's event time is its own,
 * however far ahead live runs sharing its partitions are. Dead letters are dropped too: the live job already
 * reported them, and an undecodable record names no run.
 */
public final class OneRunDeserializer<T> implements KafkaRecordDeserializationSchema<Decoded<T>> {
    private static final long serialVersionUID = 1L;

    private final KafkaRecordDeserializationSchema<Decoded<T>> inner;
    private final SerializableFunction<T, String> runIdOf;
    private final String runId;

    public OneRunDeserializer(KafkaRecordDeserializationSchema<Decoded<T>> inner, SerializableFunction<T, String> runIdOf,
                              String runId) {
        this.inner = inner;
        this.runIdOf = runIdOf;
        this.runId = runId;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
        inner.open(context);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Decoded<T>> out) throws IOException {
        inner.deserialize(record, new Collector<>() {
            @Override
            public void collect(Decoded<T> d) {
                if (!d.isDead() && runId.equals(runIdOf.apply(d.value))) {
                    out.collect(d);
                }
            }

            @Override
            public void close() {}
        });
    }

    @Override
    public TypeInformation<Decoded<T>> getProducedType() {
        return inner.getProducedType();
    }
}
