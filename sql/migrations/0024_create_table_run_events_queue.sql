-- Nested Avro records arrive as (Nullable) Tuples; ClickHouse 26.x reads union(null, record) natively.
CREATE TABLE IF NOT EXISTS ioscale.run_events_queue
(
    event_type   String,
    ts_ms        DateTime64(3, 'UTC'),
    run_id       String,
    scenario     String,
    tool         String,
    description  String,
    hosts        Array(Tuple(host String, hypervisor String, sockets Int32, cores Int32,
                             logical_processors Int32, memory_bytes Int64)),
    step_index   Int32,
    step_label   String,
    load         Nullable(Tuple(vm_count Int32, targets_per_vm Int32, workers_per_target Int32,
                                outstanding_ios_per_target Int32, block_size_bytes Int32, read_pct Float64,
                                random_pct Float64, adapter String, config_labels Map(String, String))),
    links        Array(Tuple(host String, port_id String, kind String, speed_bps Int64,
                             payload_bytes_per_s Int64, full_duplex Bool)),
    start_ms     Nullable(DateTime64(3, 'UTC')),
    end_ms       Nullable(DateTime64(3, 'UTC')),
    tags         Map(String, String)
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_bootstrap}}',
    kafka_topic_list = 'ioscale.runs',
    kafka_group_name = 'clickhouse-runs',
{{kafka_avro_consumer}}
