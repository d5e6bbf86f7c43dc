-- Kafka consumer for ioscale.io_samples: Avro in the Confluent wire format, writer schemas
-- fetched by id from the registry. Columns are matched to Avro fields by name.
CREATE TABLE IF NOT EXISTS ioscale.io_samples_queue
(
    ts_ms                 DateTime64(3, 'UTC'),
    interval_ms           Int32,
    run_id                String,
    step_index            Int32,
    host                  String,
    vm                    String,
    target                String,
    direction             String,
    ops                   Int64,
    bytes                 Int64,
    outstanding_ios       Float64,
    errors                Int64,
    latency_count         Int64,
    latency_sum_ns        Int64,
    latency_min_ns        Int64,
    latency_max_ns        Int64,
    latency_hist_scheme   Int32,
    latency_bucket_index  Array(Int32),
    latency_bucket_count  Array(Int64),
    percentile_q          Array(Float64),
    percentile_ns         Array(Int64),
    tags                  Map(String, String)
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_bootstrap}}',
    kafka_topic_list = 'ioscale.io_samples',
    kafka_group_name = 'clickhouse-io_samples',
{{kafka_avro_consumer}}
