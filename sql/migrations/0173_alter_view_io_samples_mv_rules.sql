-- io_samples_mv (0013) keeps only the samples that meet the Flink job's field rules
-- (fragments/io_sample_rules.sql); the others go to dead_letters (0172), as the job's do. A sample kept has no
-- negative counter and a scheme-1 histogram whose indexes fit UInt16, so nothing is clamped or wrapped: its
-- columns are what 0013 wrote for it. Not checked by the job and still clamped: percentile_ns. Changed in place
-- (MODIFY QUERY), after 0172, for the reasons given there. io_samples_hist_sums and io_samples_hist_by_ts are
-- filled from io_samples (0042, 0043), so they see only the samples kept.
ALTER TABLE ioscale.io_samples_mv MODIFY QUERY
{{io_sample_rules}}
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
WHERE length(_error) = 0 AND io_sample_invalid = ''
