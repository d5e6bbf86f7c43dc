-- Copies what io_samples held before io_samples_hist_by_ts_mv (0043) existed. Rows copied twice (a block
-- inserted while this runs) collapse like io_samples' own duplicates: same key, same version.
INSERT INTO ioscale.io_samples_hist_by_ts
WITH latency_hist_scheme = 1 AND length(latency_bucket_index) = length(latency_bucket_count) AS use_buckets
SELECT
    ts, run_id, step_index, host, vm, target, direction,
    mapFromArrays(if(use_buckets, latency_bucket_index, []), if(use_buckets, latency_bucket_count, [])) AS hist,
    ingested_at
FROM ioscale.io_samples
