-- cpu_samples_mv (0017) keeps only the samples that meet the Flink job's field rules
-- (fragments/cpu_sample_rules.sql); the others go to dead_letters (0174). interval_ms is then >= 0 and needs no
-- clamp; logical_processors, which neither path checks, is still clamped.
ALTER TABLE ioscale.cpu_samples_mv MODIFY QUERY
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
