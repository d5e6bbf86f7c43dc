CREATE TABLE IF NOT EXISTS ioscale.cpu_samples_queue
(
    ts_ms               DateTime64(3, 'UTC'),
    interval_ms         Int32,
    run_id              String,
    step_index          Int32,
    host                String,
    vm                  String,
    scope               String,
    cpu                 Int32,
    logical_processors  Int32,
    utilization_pct     Float64,
    user_pct            Float64,
    privileged_pct      Float64,
    dpc_pct             Float64,
    interrupt_pct       Float64,
    iowait_pct          Float64,
    interrupts_per_s    Float64,
    dpcs_per_s          Float64,
    tags                Map(String, String)
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_bootstrap}}',
    kafka_topic_list = 'ioscale.cpu_samples',
    kafka_group_name = 'clickhouse-cpu_samples',
{{kafka_avro_consumer}}
