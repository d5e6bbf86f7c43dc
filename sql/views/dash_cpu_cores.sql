-- Per logical processor CPU and interrupt samples (Superset dataset cpu_cores): cpu >= 0, FINAL against
-- at-least-once delivery. Where a host's interrupts and DPCs land: a NIC whose queues all interrupt one core
-- (no RSS or VMQ spread) shows as one tall bar, and that core saturates while the host's total looks idle.
CREATE OR REPLACE VIEW ioscale.dash_cpu_cores AS
SELECT ts, interval_ms, run_id, step_index, host, vm, scope, cpu, utilization_pct, privileged_pct, dpc_pct,
       interrupt_pct, interrupts_per_s, dpcs_per_s
FROM ioscale.cpu_samples FINAL
WHERE cpu >= 0
