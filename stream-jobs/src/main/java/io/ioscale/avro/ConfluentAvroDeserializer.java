package io.ioscale.avro;

import io.ioscale.records.DeadLetter;
import io.ioscale.records.Decoded;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Kafka source deserializer: Confluent-framed Avro to {@link Decoded} records. Decoding in the source (not in a
 * later operator) lets the source take event time and per-partition watermarks from the decoded values.
 * A record that cannot be decoded becomes a {@link DeadLetter} carrying its topic, partition, offset, key,
 * value and reason; the counter {@code deadLetters} (in the source's metric group) counts them.
 */
public final class ConfluentAvroDeserializer<T> implements KafkaRecordDeserializationSchema<Decoded<T>> {
    private static final long serialVersionUID = 1L;

    private final String readerSchemaFile;
    private final WriterSchemas.Factory writerSchemas;
    private final ConfluentAvroDecoder.RecordConverter<T> converter;
    private final ConfluentAvroDecoder.BodyReader<T> bodyReader;
    private final ConfluentAvroDecoder.Checker<T> checker;
    private final TypeInformation<Decoded<T>> producedType;
    private transient ConfluentAvroDecoder<T> decoder;
    private transient Counter deadLetters;

    public ConfluentAvroDeserializer(String readerSchemaFile, WriterSchemas.Factory writerSchemas,
                                     ConfluentAvroDecoder.RecordConverter<T> converter,
                                     TypeInformation<Decoded<T>> producedType) {
        this(readerSchemaFile, writerSchemas, converter, null, null, producedType);
    }

    /** With a direct body reader (see {@link ConfluentAvroDecoder#direct}). */
    public ConfluentAvroDeserializer(String readerSchemaFile, WriterSchemas.Factory writerSchemas,
                                     ConfluentAvroDecoder.BodyReader<T> bodyReader,
                                     ConfluentAvroDecoder.Checker<T> checker,
                                     TypeInformation<Decoded<T>> producedType) {
        this(readerSchemaFile, writerSchemas, null, bodyReader, checker, producedType);
    }

    private ConfluentAvroDeserializer(String readerSchemaFile, WriterSchemas.Factory writerSchemas,
                                      ConfluentAvroDecoder.RecordConverter<T> converter,
                                      ConfluentAvroDecoder.BodyReader<T> bodyReader,
                                      ConfluentAvroDecoder.Checker<T> checker,
                                      TypeInformation<Decoded<T>> producedType) {
        this.readerSchemaFile = readerSchemaFile;
        this.writerSchemas = writerSchemas;
        this.converter = converter;
        this.bodyReader = bodyReader;
        this.checker = checker;
        this.producedType = producedType;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        Schema reader = ReaderSchemas.load(readerSchemaFile);
        decoder = bodyReader != null
                ? ConfluentAvroDecoder.direct(reader, writerSchemas.create(), bodyReader, checker)
                : new ConfluentAvroDecoder<>(reader, writerSchemas.create(), converter);
        deadLetters = context.getMetricGroup().counter("deadLetters");
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Decoded<T>> out) throws IOException {
        try {
            out.collect(Decoded.of(decoder.decode(record.value())));
        } catch (DecodeException e) {
            deadLetters.inc();
            out.collect(Decoded.dead(DeadLetter.of(record.topic(), record.partition(), record.offset(),
                    record.timestamp(), e.schemaId(), e.reason(), record.key(), record.value())));
        }
    }

    @Override
    public TypeInformation<Decoded<T>> getProducedType() {
        return producedType;
    }
}
