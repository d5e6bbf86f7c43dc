package io.ioscale.sinks;

import io.ioscale.records.AlertRow;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Alerts on Kafka: key = alert_id (UTF-8), value = the same JSON object as the {@code alerts} table row
 * (snake_case keys, timestamps as "yyyy-MM-dd HH:mm:ss.SSS" UTC, NaN as null). JSON rather than Avro: alerts
 * are few, read by people and chat hooks, and the key makes duplicates (at-least-once) easy to drop.
 */
public class AlertSerializer implements KafkaRecordSerializationSchema<AlertRow> {
    private static final long serialVersionUID = 1L;

    private final String topic;

    public AlertSerializer(String topic) {
        this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(AlertRow alert, KafkaSinkContext context, Long timestamp) {
        JsonRowWriter json = new JsonRowWriter();
        alert.write(json);
        byte[] body = json.toByteArray();
        int end = body.length > 0 && body[body.length - 1] == '\n' ? body.length - 1 : body.length;
        return new ProducerRecord<>(topic, null, alert.emittedAtMs, alert.alertId.getBytes(StandardCharsets.UTF_8),
                java.util.Arrays.copyOf(body, end));
    }
}
