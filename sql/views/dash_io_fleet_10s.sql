-- The Flink job's fleet rollup over 10 s windows (Superset dataset io_fleet_10s), FINAL: the job writes at
-- least once and re-emits a window that takes in late data; FINAL keeps the row with the largest version.
-- emitted_at: when the job wrote the window (wall clock), for scheduled SLO checks.
CREATE OR REPLACE VIEW ioscale.dash_io_fleet_10s AS
SELECT window_start, window_end, run_id, step_index, sources, iops, mb_per_s, outstanding_ios, errors,
       latency_n, latency_mean_ns, latency_max_ns,
       p50_ns, p90_ns, p99_ns, p99_9_ns, p99_99_ns, p99_999_ns,
       p50_too_few, p90_too_few, p99_too_few, p99_9_too_few, p99_99_too_few, p99_999_too_few, emitted_at
FROM ioscale.io_fleet_10s FINAL
