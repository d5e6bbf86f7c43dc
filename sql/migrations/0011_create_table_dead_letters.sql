-- Records ClickHouse's Kafka tables could not decode, with the reason. Counted, never lost:
-- `kafka_handle_error_mode = 'stream'` hands bad messages to the *_dlq_mv views instead of
-- stopping consumption of the whole partition.
CREATE TABLE IF NOT EXISTS ioscale.dead_letters
(
    received_at   DateTime64(3, 'UTC')   DEFAULT now64(3),
    stage         LowCardinality(String),      -- who rejected it: clickhouse-kafka, flink, importer
    topic         LowCardinality(String),
    partition     Int32,
    offset        Int64,
    reason        String,
    raw_message   String                  CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (topic, received_at)
TTL toDateTime(received_at) + INTERVAL 90 DAY
