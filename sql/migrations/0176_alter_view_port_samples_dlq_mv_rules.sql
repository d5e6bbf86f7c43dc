-- port_samples_dlq_mv (0022) also takes the samples that break a field rule of the Flink job
-- (fragments/port_sample_rules.sql), raw_message the decoded record as JSON; in place, before port_samples_mv
-- (0177), as io_samples_dlq_mv (0172) says why.
ALTER TABLE ioscale.port_samples_dlq_mv MODIFY QUERY
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
