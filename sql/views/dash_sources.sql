-- Every source of each run, one row per (run, host, VM, target) (Superset dataset dash_sources): what the Host,
-- VM and Target filters of the live and fleet-balance dashboards list. Read from the per-step sums
-- (io_samples_hist_sums, grain source_step: ~3k rows for a 320-VM hour) rather than io_samples FINAL (0.96 M
-- rows for that run, ~5 M for all runs): the filters ask for their values on every load and every refresh, and
-- over the raw samples each ask takes 0.1 s for one run and 0.8 s for all of them on ClickHouse alone.
CREATE OR REPLACE VIEW ioscale.dash_sources AS
SELECT run_id, host, vm, target
FROM ioscale.io_samples_hist_sums
WHERE grain = 'source_step'
GROUP BY run_id, host, vm, target
