-- io_samples_dlq_mv (0172) judges a sample with io_sample_invalid only where io_sample_surely_valid
-- (fragments/io_sample_surely_valid.sql) does not clear it, and keeps a row whose reason is not empty: the same
-- samples go to dead_letters with the same reasons, at a fraction of the CPU (bench/raw_path_bench.py). Changed
-- in place, before io_samples_mv (0183), for the reasons 0172 gives.
ALTER TABLE ioscale.io_samples_dlq_mv MODIFY QUERY
{{io_sample_rules}},
{{io_sample_surely_valid}}
SELECT
    'clickhouse-kafka' AS stage,
    _topic AS topic,
    toInt32(_partition) AS partition,
    toInt64(_offset) AS offset,
    -- Computed for every row of the block: for a surely valid row, '' without evaluating io_sample_invalid or
    -- formatting the row (if() is lazy; an expression used twice, as io_sample_invalid was in the WHERE too, is not).
    if(length(_error) > 0, _error, if(io_sample_surely_valid, '', io_sample_invalid)) AS reason,
    if(length(_error) > 0, _raw_message, if(io_sample_surely_valid, '',
       formatRowNoNewline('JSONEachRow', ts_ms, interval_ms, run_id, step_index, host, vm, target, direction, ops,
                          bytes, outstanding_ios, errors, latency_count, latency_sum_ns, latency_min_ns,
                          latency_max_ns, latency_hist_scheme, latency_bucket_index, latency_bucket_count,
                          percentile_q, percentile_ns, tags))) AS raw_message
FROM ioscale.io_samples_queue
WHERE reason != ''  -- a parse error, or a rule broken
SETTINGS output_format_json_quote_denormals = 1, output_format_json_quote_64bit_integers = 0
