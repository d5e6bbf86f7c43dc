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
--   The steps as the view ioscale.steps (sql/views/steps.sql) gives them: the load from the latest STEP_*
--   event that carries one.
SELECT
    step_index,
    step_label,
    vm_count,
    targets_per_vm,
    workers_per_target,
    outstanding_ios_per_target,
    block_size_bytes,
    round(read_pct, 1)                                               AS read_pct,
    round(random_pct, 1)                                             AS random_pct,
    adapter,
    started,
    measured_start,
    measured_end,
    round((toUnixTimestamp64Milli(measured_start) - toUnixTimestamp64Milli(started)) / 1000, 1) AS ramp_up_s,
    round((toUnixTimestamp64Milli(measured_end) - toUnixTimestamp64Milli(measured_start)) / 1000, 1) AS measured_s
FROM ioscale.steps
WHERE run_id = {run_id:String}
ORDER BY step_index
