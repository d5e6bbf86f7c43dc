-- dead_letters from the port_samples queue: parse errors, and the samples that break a field rule of the Flink
-- job (fragments/port_sample_rules.sql), raw_message the decoded record as JSON, as io_samples_dlq_mv.sql says.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.port_samples_dlq_mv TO ioscale.dead_letters AS
{{port_sample_rules}}
SELECT
    'clickhouse-kafka' AS stage,
    _topic AS topic,
    toInt32(_partition) AS partition,
    toInt64(_offset) AS offset,
    if(length(_error) > 0, _error, port_sample_invalid) AS reason,
    if(length(_error) > 0, _raw_message,
       formatRowNoNewline('JSONEachRow', ts_ms, interval_ms, run_id, step_index, host, port_id, kind, queue, vm,
                          link_speed_bps, rx_bytes, tx_bytes, rx_frames, tx_frames, rx_errors, tx_errors,
                          interrupts, tags)) AS raw_message
FROM ioscale.port_samples_queue
WHERE length(_error) > 0 OR port_sample_invalid != ''
SETTINGS output_format_json_quote_denormals = 1, output_format_json_quote_64bit_integers = 0
