package io.ioscale.records;


/**
 * A {@link DeadLetter} as a row of the existing {@code dead_letters} table (sql/migrations/0011), next to the
 * ClickHouse Kafka engine's own, with {@code stage = 'flink'}. {@code received_at} is the table's default.
 */
public class DeadLetterRow implements ResultRow {
    public static final String TABLE = "dead_letters";
    public static final String STAGE = "flink";

    public DeadLetter deadLetter = new DeadLetter();

    public DeadLetterRow() {}

    public static DeadLetterRow of(DeadLetter d) {
        DeadLetterRow r = new DeadLetterRow();
        r.deadLetter = d;
        return r;
    }

    @Override
    public String table() {
        return TABLE;
    }

    @Override
    public void write(RowFormat out) {
        out.beginRow()
                .lowCardinality("stage", STAGE)
                .lowCardinality("topic", deadLetter.topic)
                .int32("partition", deadLetter.partition)
                .int64("offset", deadLetter.offset)
                .string("reason", deadLetter.reason)
                .bytes("raw_message", deadLetter.value)
                .endRow();
    }
}
