-- The load steps of a run: label, swept load, and the measured window each step declared.
--
-- Which step_index is "40 VMs/node"? How long was the ramp-up? Has step 7 ended yet? One row per step from the
-- run events alone (cheap), to pick the step_index the step queries take.
--
-- Parameters:
--   run_id        String        the run (see `ioscale sql run_list`)
--
-- Columns:
--   step_index                  step, 0-based
--   step_label                  the step's label
--   vm_count                    VMs generating I/O (0 = the host itself)
--   targets_per_vm              disks/volumes per VM
--   workers_per_target          workers (threads) per target
--   outstanding_ios_per_target  queue depth per worker and target
--   block_size_bytes            I/O size, bytes
--   read_pct                    share of reads, %
--   random_pct                  share of random I/O, %
--   adapter                     storage adapter or path
--   started                     STEP_STARTED time (start of ramp-up), UTC
--   measured_start              start of the measured window (STEP_ENDED start_ts), UTC; NULL until the step ends
--   measured_end                end of the step (STEP_ENDED end_ts), UTC; NULL until the step ends
--   ramp_up_s                   measured_start - started, seconds
--   measured_s                  measured_end - measured_start, seconds
--
-- Notes:
--   The load comes from the latest STEP_* event that carries one. FINAL: events arrive at least once.
SELECT
    step_index,
    argMaxIf(step_label, ts, step_label != '')                       AS step_label,
    argMaxIf(vm_count, ts, has_load)                                 AS vm_count,
    argMaxIf(targets_per_vm, ts, has_load)                           AS targets_per_vm,
    argMaxIf(workers_per_target, ts, has_load)                       AS workers_per_target,
    argMaxIf(outstanding_ios_per_target, ts, has_load)               AS outstanding_ios_per_target,
    argMaxIf(block_size_bytes, ts, has_load)                         AS block_size_bytes,
    round(argMaxIf(read_pct, ts, has_load), 1)                       AS read_pct,
    round(argMaxIf(random_pct, ts, has_load), 1)                     AS random_pct,
    argMaxIf(adapter, ts, has_load)                                  AS adapter,
    if(countIf(event_type = 'step_started') > 0, minIf(ts, event_type = 'step_started'), NULL) AS started,
    anyIf(start_ts, event_type = 'step_ended')                       AS measured_start,
    anyIf(end_ts, event_type = 'step_ended')                         AS measured_end,
    round((toUnixTimestamp64Milli(measured_start) - toUnixTimestamp64Milli(started)) / 1000, 1) AS ramp_up_s,
    round((toUnixTimestamp64Milli(measured_end) - toUnixTimestamp64Milli(measured_start)) / 1000, 1) AS measured_s
FROM ioscale.run_events FINAL
WHERE run_id = {run_id:String} AND event_type IN ('step_started', 'step_ended')
GROUP BY step_index
ORDER BY step_index
