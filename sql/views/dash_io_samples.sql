-- Raw I/O samples as the dashboards read them (Superset dataset io_samples): FINAL collapses a sample the
-- Kafka engine delivered twice, and the histogram arrays are left out (fleet percentiles over time come from
-- the Flink job's io_fleet_10s; merging raw histograms per second costs seconds on a one-hour run).
-- ClickHouse pushes a query's WHERE on run_id / ts / host ... into the view, so it reads only those rows.
CREATE OR REPLACE VIEW ioscale.dash_io_samples AS
SELECT ts, interval_ms, run_id, step_index, host, vm, target, direction, ops, bytes, outstanding_ios, errors,
       latency_count, latency_sum_ns, latency_min_ns, latency_max_ns
FROM ioscale.io_samples FINAL
