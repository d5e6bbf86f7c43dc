-- CPU and interrupt samples as the dashboards read them (Superset dataset cpu_samples): scope totals only
-- (cpu = -1), FINAL against at-least-once delivery.
CREATE OR REPLACE VIEW ioscale.dash_cpu_samples AS
SELECT ts, interval_ms, run_id, step_index, host, vm, scope, logical_processors, utilization_pct, user_pct,
       privileged_pct, dpc_pct, interrupt_pct, iowait_pct, interrupts_per_s, dpcs_per_s
FROM ioscale.cpu_samples FINAL
WHERE cpu = -1
