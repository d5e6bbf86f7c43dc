-- Each step of each run as its events describe it, the one home of these rules for the SQL library (run_steps,
-- scaling_curve_raw) and the dashboards (dash_run_steps): the label and the swept load from the latest STEP_*
-- event that carries one; started: the first STEP_STARTED (the start of ramp-up); the measured window from
-- STEP_ENDED (start_ts .. end_ts), NULL until the step ends. FINAL: events arrive at least once.
CREATE OR REPLACE VIEW ioscale.steps AS
SELECT
    run_id,
    step_index,
    any(scenario)                                                        AS scenario,
    argMaxIf(step_label, ts, step_label != '')                           AS step_label,
    max(has_load)                                                        AS step_has_load,
    argMaxIf(vm_count, ts, has_load)                                     AS vm_count,
    argMaxIf(targets_per_vm, ts, has_load)                               AS targets_per_vm,
    argMaxIf(workers_per_target, ts, has_load)                           AS workers_per_target,
    argMaxIf(outstanding_ios_per_target, ts, has_load)                   AS outstanding_ios_per_target,
    argMaxIf(block_size_bytes, ts, has_load)                             AS block_size_bytes,
    argMaxIf(read_pct, ts, has_load)                                     AS read_pct,
    argMaxIf(random_pct, ts, has_load)                                   AS random_pct,
    argMaxIf(adapter, ts, has_load)                                      AS adapter,
    if(countIf(event_type = 'step_started') > 0, minIf(ts, event_type = 'step_started'), NULL) AS started,
    anyIf(start_ts, event_type = 'step_ended')                           AS measured_start,
    anyIf(end_ts, event_type = 'step_ended')                             AS measured_end,
    countIf(event_type = 'step_ended') > 0                               AS ended
FROM ioscale.run_events FINAL
WHERE event_type IN ('step_started', 'step_ended')
GROUP BY run_id, step_index
