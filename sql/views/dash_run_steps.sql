-- The load steps of every run (Superset dataset run_steps), as sql/queries/run_steps.sql gives one run's: the
-- steps view, with the total queue depth and the block size in KiB.
CREATE OR REPLACE VIEW ioscale.dash_run_steps AS
SELECT
    run_id,
    scenario,
    step_index,
    step_label,
    vm_count,
    targets_per_vm,
    workers_per_target,
    outstanding_ios_per_target,
    greatest(vm_count, 1) * targets_per_vm * workers_per_target * outstanding_ios_per_target AS total_outstanding_ios,
    block_size_bytes / 1024                                              AS block_size_kib,
    round(read_pct, 1)                                                   AS read_pct,
    round(random_pct, 1)                                                 AS random_pct,
    adapter,
    started,
    measured_start,
    measured_end,
    if(ended, 'ended', 'running')                                        AS state
FROM ioscale.steps
WHERE step_index >= 0
