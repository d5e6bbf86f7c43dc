-- port_samples from the Kafka queue: the samples that decode and meet the Flink job's field rules
-- (fragments/port_sample_rules.sql); the others go to dead_letters (port_samples_dlq_mv.sql). Every counter is
-- then >= 0 and needs no clamp.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.port_samples_mv TO ioscale.port_samples AS
{{port_sample_rules}}
SELECT
    ts_ms AS ts,
    toUInt32(interval_ms) AS interval_ms,
    run_id, step_index, host, port_id,
    lower(kind) AS kind,
    queue, vm,
    toUInt64(link_speed_bps) AS link_speed_bps,
    toUInt64(rx_bytes) AS rx_bytes,
    toUInt64(tx_bytes) AS tx_bytes,
    toUInt64(rx_frames) AS rx_frames,
    toUInt64(tx_frames) AS tx_frames,
    toUInt64(rx_errors) AS rx_errors,
    toUInt64(tx_errors) AS tx_errors,
    toUInt64(interrupts) AS interrupts,
    tags
FROM ioscale.port_samples_queue
WHERE length(_error) = 0 AND port_sample_invalid = ''
