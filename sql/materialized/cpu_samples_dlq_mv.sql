-- dead_letters from the cpu_samples queue: parse errors, and the samples that break a field rule of the Flink
-- job (fragments/cpu_sample_rules.sql), raw_message the decoded record as JSON, as io_samples_dlq_mv.sql says.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.cpu_samples_dlq_mv TO ioscale.dead_letters AS
{{cpu_sample_rules}}
SELECT
    'clickhouse-kafka' AS stage,
    _topic AS topic,
    toInt32(_partition) AS partition,
    toInt64(_offset) AS offset,
    if(length(_error) > 0, _error, cpu_sample_invalid) AS reason,
    if(length(_error) > 0, _raw_message,
       formatRowNoNewline('JSONEachRow', ts_ms, interval_ms, run_id, step_index, host, vm, scope, cpu,
                          logical_processors, utilization_pct, user_pct, privileged_pct, dpc_pct, interrupt_pct,
                          iowait_pct, interrupts_per_s, dpcs_per_s, tags)) AS raw_message
FROM ioscale.cpu_samples_queue
WHERE length(_error) > 0 OR cpu_sample_invalid != ''
SETTINGS output_format_json_quote_denormals = 1, output_format_json_quote_64bit_integers = 0
