-- Copies every block inserted into io_samples into io_samples_hist_by_ts, histogram as a Map (empty for bucket
-- arrays of unequal lengths: mapFromArrays would raise and stall the Kafka consumer).
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.io_samples_hist_by_ts_mv TO ioscale.io_samples_hist_by_ts AS
WITH latency_hist_scheme = 1 AND length(latency_bucket_index) = length(latency_bucket_count) AS use_buckets
SELECT
    ts, run_id, step_index, host, vm, target, direction,
    mapFromArrays(if(use_buckets, latency_bucket_index, []), if(use_buckets, latency_bucket_count, [])) AS hist,
    ingested_at
FROM ioscale.io_samples
