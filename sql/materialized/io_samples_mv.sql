-- io_samples from the Kafka queue: the samples that decode and meet the Flink job's field rules
-- (fragments/io_sample_rules.sql); the others go to dead_letters (io_samples_dlq_mv.sql), as the job's do. A
-- sample kept has no negative counter and a scheme-1 histogram whose indexes fit UInt16, so nothing is clamped
-- or wrapped; percentile_ns, which the job does not check, is clamped at 0. io_sample_surely_valid
-- (fragments/io_sample_surely_valid.sql) clears most samples with whole-array checks, and only the others are
-- judged by io_sample_invalid, whose per-bucket lambda and messages cost far more (bench/raw_path_bench.py).
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.io_samples_mv TO ioscale.io_samples AS
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
