package io.ioscale.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ioscale.records.AlertRow;
import io.ioscale.records.DeadLetter;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class KafkaSerializersTest {

    @Test
    void deadLettersKeepKeyAndValueAndCarryTheReasonInHeaders() {
        byte[] value = {0, 0, 0, 0, 42, 7, 7};
        byte[] key = "run/h".getBytes(StandardCharsets.UTF_8);
        DeadLetter d = DeadLetter.of("ioscale.cpu_samples", 2, 99, 1_700L, 42,
                "unknown_schema_id: schema id 42 is not in the registry", key, value);
        ProducerRecord<byte[], byte[]> r = new DeadLetterSerializer("ioscale.dead_letter").serialize(d, null, null);
        assertThat(r.topic()).isEqualTo("ioscale.dead_letter");
        assertThat(r.key()).isEqualTo(key);
        assertThat(r.value()).isEqualTo(value);
        assertThat(r.timestamp()).isEqualTo(1_700L);
        assertThat(header(r, "reason")).isEqualTo("unknown_schema_id: schema id 42 is not in the registry");
        assertThat(header(r, "topic")).isEqualTo("ioscale.cpu_samples");
        assertThat(header(r, "partition")).isEqualTo("2");
        assertThat(header(r, "offset")).isEqualTo("99");
        assertThat(header(r, "schema_id")).isEqualTo("42");
        assertThat(header(r, "stage")).isEqualTo("flink");
    }

    private static String header(ProducerRecord<byte[], byte[]> r, String name) {
        return new String(r.headers().lastHeader(DeadLetterSerializer.PREFIX + name).value(), StandardCharsets.UTF_8);
    }

    @Test
    void alertsAreOneJsonObjectKeyedByTheirId() throws Exception {
        AlertRow a = new AlertRow();
        a.alertId = AlertRow.id("run-1", 3, AlertRow.SATURATION, AlertRow.FINAL, "port h1/fc0 RX");
        a.kind = AlertRow.SATURATION;
        a.phase = AlertRow.FINAL;
        a.runId = "run-1";
        a.stepIndex = 3;
        a.resource = "port h1/fc0 RX";
        a.value = 98.9;
        a.evidence = "port h1/fc0 RX at 98.9%";
        a.eventTsMs = 60_000;
        ProducerRecord<byte[], byte[]> r = new AlertSerializer("ioscale.alerts").serialize(a, null, null);
        assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("run-1/3/saturation/final/port h1/fc0 RX");
        JsonNode json = new ObjectMapper().readTree(r.value());
        assertThat(json.get("alert_id").asText()).isEqualTo(a.alertId);
        assertThat(json.get("value").asDouble()).isEqualTo(98.9);
        assertThat(json.get("threshold").isNull()).isTrue();
        assertThat(json.get("event_ts").asText()).isEqualTo("1970-01-01 00:01:00.000");
        assertThat(new String(r.value(), StandardCharsets.UTF_8)).doesNotContain("\n");
    }
}
