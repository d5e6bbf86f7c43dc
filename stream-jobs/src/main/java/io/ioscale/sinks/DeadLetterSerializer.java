package io.ioscale.sinks;

import io.ioscale.records.DeadLetter;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Dead letters on Kafka, in the shape Kafka Connect uses for its DLQs: the original key and value, unchanged
 * (so a fixed consumer can re-read them), and the why in headers:
 *
 * <pre>
 *   ioscale.dlq.stage        flink
 *   ioscale.dlq.reason       e.g. "unknown_schema_id: schema id 77 is not in the registry"
 *   ioscale.dlq.topic        the topic it was read from
 *   ioscale.dlq.partition    decimal
 *   ioscale.dlq.offset       decimal
 *   ioscale.dlq.schema_id    decimal; -1 when the wire header was unreadable
 * </pre>
 */
public class DeadLetterSerializer implements KafkaRecordSerializationSchema<DeadLetter> {
    private static final long serialVersionUID = 1L;

    public static final String PREFIX = "ioscale.dlq.";

    private final String topic;

    public DeadLetterSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(DeadLetter d, KafkaSinkContext context, Long timestamp) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(PREFIX + "stage", bytes("flink"));
        headers.add(PREFIX + "reason", bytes(d.reason));
        headers.add(PREFIX + "topic", bytes(d.topic));
        headers.add(PREFIX + "partition", bytes(Integer.toString(d.partition)));
        headers.add(PREFIX + "offset", bytes(Long.toString(d.offset)));
        headers.add(PREFIX + "schema_id", bytes(Integer.toString(d.schemaId)));
        Long ts = d.kafkaTimestampMs >= 0 ? d.kafkaTimestampMs : null;
        return new ProducerRecord<>(topic, null, ts, d.key, d.value == null ? new byte[0] : d.value, headers);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
