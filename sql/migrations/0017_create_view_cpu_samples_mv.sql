CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.cpu_samples_mv TO ioscale.cpu_samples AS
SELECT
    ts_ms AS ts,
    toUInt32(greatest(interval_ms, 0)) AS interval_ms,
    run_id, step_index, host, vm,
    lower(scope) AS scope,
    toInt16(cpu) AS cpu,
    toUInt16(greatest(logical_processors, 0)) AS logical_processors,
    utilization_pct, user_pct, privileged_pct, dpc_pct, interrupt_pct, iowait_pct,
    interrupts_per_s, dpcs_per_s,
    tags
FROM ioscale.cpu_samples_queue
WHERE length(_error) = 0
