-- Good rows from the queue into io_samples. Negative counters (a broken collector) are clamped
-- to 0 rather than wrapping to 2^64 in the unsigned columns.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.io_samples_mv TO ioscale.io_samples AS
SELECT
    ts_ms AS ts,
    toUInt32(greatest(interval_ms, 0)) AS interval_ms,
    run_id,
    step_index,
    host,
    vm,
    target,
    lower(direction) AS direction,
    toUInt64(greatest(ops, 0)) AS ops,
    toUInt64(greatest(bytes, 0)) AS bytes,
    outstanding_ios,
    toUInt64(greatest(errors, 0)) AS errors,
    toUInt64(greatest(latency_count, 0)) AS latency_count,
    toUInt64(greatest(latency_sum_ns, 0)) AS latency_sum_ns,
    toUInt64(greatest(latency_min_ns, 0)) AS latency_min_ns,
    toUInt64(greatest(latency_max_ns, 0)) AS latency_max_ns,
    toUInt8(latency_hist_scheme) AS latency_hist_scheme,
    arrayMap(i -> toUInt16(i), latency_bucket_index) AS latency_bucket_index,
    arrayMap(c -> toUInt64(greatest(c, 0)), latency_bucket_count) AS latency_bucket_count,
    percentile_q,
    arrayMap(v -> toUInt64(greatest(v, 0)), percentile_ns) AS percentile_ns,
    tags
FROM ioscale.io_samples_queue
WHERE length(_error) = 0
