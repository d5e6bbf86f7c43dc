-- io_samples_mv (0173) keeps a sample that io_sample_surely_valid (fragments/io_sample_surely_valid.sql) clears
-- without evaluating io_sample_invalid, and judges only the others with it: the same samples reach io_samples, at
-- a fraction of the CPU (bench/raw_path_bench.py). Changed in place, after io_samples_dlq_mv (0182), for the
-- reasons 0172 gives.
ALTER TABLE ioscale.io_samples_mv MODIFY QUERY
{{io_sample_rules}},
{{io_sample_surely_valid}}
SELECT
    ts_ms AS ts,
    toUInt32(interval_ms) AS interval_ms,
    run_id,
    step_index,
    host,
    vm,
    target,
    lower(direction) AS direction,
    toUInt64(ops) AS ops,
    toUInt64(bytes) AS bytes,
    outstanding_ios,
    toUInt64(errors) AS errors,
    toUInt64(latency_count) AS latency_count,
    toUInt64(latency_sum_ns) AS latency_sum_ns,
    toUInt64(latency_min_ns) AS latency_min_ns,
    toUInt64(latency_max_ns) AS latency_max_ns,
    toUInt8(latency_hist_scheme) AS latency_hist_scheme,
    arrayMap(i -> toUInt16(i), latency_bucket_index) AS latency_bucket_index,
    arrayMap(c -> toUInt64(c), latency_bucket_count) AS latency_bucket_count,
    percentile_q,
    arrayMap(v -> toUInt64(greatest(v, 0)), percentile_ns) AS percentile_ns,
    tags
FROM ioscale.io_samples_queue
WHERE length(_error) = 0 AND (io_sample_surely_valid OR io_sample_invalid = '')
