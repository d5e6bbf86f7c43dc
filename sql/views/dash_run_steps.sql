-- The load steps of every run (Superset dataset run_steps), as sql/queries/run_steps.sql: label, swept load
-- (from the latest STEP_* event carrying one) and the measured window STEP_ENDED declares.
CREATE OR REPLACE VIEW ioscale.dash_run_steps AS
SELECT
    run_id,
    any(scenario)                                                        AS scenario,
    step_index,
    argMax(step_label, ts)                                               AS step_label,
    argMaxIf(vm_count, ts, has_load)                                     AS vm_count,
    argMaxIf(targets_per_vm, ts, has_load)                               AS targets_per_vm,
    argMaxIf(workers_per_target, ts, has_load)                           AS workers_per_target,
    argMaxIf(outstanding_ios_per_target, ts, has_load)                   AS outstanding_ios_per_target,
    greatest(vm_count, 1) * targets_per_vm * workers_per_target * outstanding_ios_per_target AS total_outstanding_ios,
    argMaxIf(block_size_bytes, ts, has_load) / 1024                      AS block_size_kib,
    round(argMaxIf(read_pct, ts, has_load), 1)                           AS read_pct,
    round(argMaxIf(random_pct, ts, has_load), 1)                         AS random_pct,
    argMaxIf(adapter, ts, has_load)                                      AS adapter,
    if(countIf(event_type = 'step_started') > 0, minIf(ts, event_type = 'step_started'), NULL) AS started,
    anyIf(start_ts, event_type = 'step_ended')                           AS measured_start,
    anyIf(end_ts, event_type = 'step_ended')                             AS measured_end,
    if(countIf(event_type = 'step_ended') > 0, 'ended', 'running')       AS state
FROM ioscale.run_events FINAL
WHERE event_type IN ('step_started', 'step_ended') AND step_index >= 0
GROUP BY run_id, step_index
