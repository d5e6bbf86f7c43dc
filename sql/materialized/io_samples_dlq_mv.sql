-- dead_letters from the io_samples queue: the messages ClickHouse could not parse, with its parse error as the
-- reason, and the samples that break a field rule of the Flink job (fragments/io_sample_rules.sql), with the
-- reason the job's dead letter has: 'invalid: <rule>'. Such a sample's raw_message is the decoded record as JSON
-- (NaN, inf as "nan", "inf"): the engine fills _raw_message only for a message it could not parse (ClickHouse
-- docs, Kafka engine, virtual columns: "filled only in case of exception during parsing"); the bytes themselves
-- are on Kafka at topic/partition/offset. A sample io_sample_surely_valid clears is not judged further.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.io_samples_dlq_mv TO ioscale.dead_letters AS
{{io_sample_rules}},
{{io_sample_surely_valid}}
SELECT
    'clickhouse-kafka' AS stage,
    _topic AS topic,
    toInt32(_partition) AS partition,
    toInt64(_offset) AS offset,
    -- Computed for every row of the block: for a surely valid row, '' without evaluating io_sample_invalid or
    -- formatting the row (if() is lazy; an expression used twice, say in the WHERE too, is not).
    if(length(_error) > 0, _error, if(io_sample_surely_valid, '', io_sample_invalid)) AS reason,
    if(length(_error) > 0, _raw_message, if(io_sample_surely_valid, '',
       formatRowNoNewline('JSONEachRow', ts_ms, interval_ms, run_id, step_index, host, vm, target, direction, ops,
                          bytes, outstanding_ios, errors, latency_count, latency_sum_ns, latency_min_ns,
                          latency_max_ns, latency_hist_scheme, latency_bucket_index, latency_bucket_count,
                          percentile_q, percentile_ns, tags))) AS raw_message
FROM ioscale.io_samples_queue
WHERE reason != ''  -- a parse error, or a rule broken
SETTINGS output_format_json_quote_denormals = 1, output_format_json_quote_64bit_integers = 0
