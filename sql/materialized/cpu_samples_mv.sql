-- cpu_samples from the Kafka queue: the samples that decode and meet the Flink job's field rules
-- (fragments/cpu_sample_rules.sql); the others go to dead_letters (cpu_samples_dlq_mv.sql). interval_ms is then
-- >= 0 and needs no clamp; logical_processors, which neither path checks, is clamped at 0.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.cpu_samples_mv TO ioscale.cpu_samples AS
{{cpu_sample_rules}}
SELECT
    ts_ms AS ts,
    toUInt32(interval_ms) AS interval_ms,
    run_id, step_index, host, vm,
    lower(scope) AS scope,
    toInt16(cpu) AS cpu,
    toUInt16(greatest(logical_processors, 0)) AS logical_processors,
    utilization_pct, user_pct, privileged_pct, dpc_pct, interrupt_pct, iowait_pct,
    interrupts_per_s, dpcs_per_s,
    tags
FROM ioscale.cpu_samples_queue
WHERE length(_error) = 0 AND cpu_sample_invalid = ''
