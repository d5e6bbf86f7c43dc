CREATE TABLE IF NOT EXISTS ioscale.port_samples_queue
(
    ts_ms           DateTime64(3, 'UTC'),
    interval_ms     Int32,
    run_id          String,
    step_index      Int32,
    host            String,
    port_id         String,
    kind            String,
    queue           Int32,
    vm              String,
    link_speed_bps  Int64,
    rx_bytes        Int64,
    tx_bytes        Int64,
    rx_frames       Int64,
    tx_frames       Int64,
    rx_errors       Int64,
    tx_errors       Int64,
    interrupts      Int64,
    tags            Map(String, String)
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_bootstrap}}',
    kafka_topic_list = 'ioscale.port_samples',
    kafka_group_name = 'clickhouse-port_samples',
{{kafka_avro_consumer}}
