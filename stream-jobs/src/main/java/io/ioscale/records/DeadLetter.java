package io.ioscale.records;

/**
 * A Kafka record the job could not decode, with why. It goes, unchanged, to the dead-letter topic (value and
 * key as received, the reason in headers; see {@code DeadLetterSerializer}) and as a row to
 * ClickHouse's {@code dead_letters} table with {@code stage = 'flink'}.
 */
public class DeadLetter {
    public String topic = "";
    public int partition = -1;
    public long offset = -1;
    /** Kafka record timestamp (ms); -1 when the record had none. */
    public long kafkaTimestampMs = -1;
    /** Writer schema id from the wire header; -1 when the header was unreadable. */
    public int schemaId = -1;
    /**
     * Short reason, starting with a stable code: bad_header, unknown_schema_id, not_avro, undecodable, invalid
     * (io.ioscale.avro.DecodeException says what each means).
     */
    public String reason = "";
    public byte[] key;
    public byte[] value;

    public DeadLetter() {}

    public static DeadLetter of(String topic, int partition, long offset, long kafkaTimestampMs, int schemaId,
                                String reason, byte[] key, byte[] value) {
        DeadLetter d = new DeadLetter();
        d.topic = topic;
        d.partition = partition;
        d.offset = offset;
        d.kafkaTimestampMs = kafkaTimestampMs;
        d.schemaId = schemaId;
        d.reason = reason;
        d.key = key;
        d.value = value;
        return d;
    }

    /** The reason's code: the text before the first ':' (e.g. {@code unknown_schema_id}). */
    public String reasonCode() {
        int colon = reason.indexOf(':');
        return colon < 0 ? reason : reason.substring(0, colon);
    }

    @Override
    public String toString() {
        return "DeadLetter(" + topic + "/" + partition + "@" + offset + ", schema_id=" + schemaId + ": " + reason + ")";
    }
}
