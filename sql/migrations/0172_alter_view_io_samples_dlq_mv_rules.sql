-- io_samples_dlq_mv (0014) also takes the samples that decode but break a field rule of the Flink job
-- (fragments/io_sample_rules.sql), with the reason the job's dead letter has: 'invalid: <rule>'. Their
-- raw_message is the decoded record as JSON (NaN, inf as "nan", "inf"): the engine fills _raw_message only for
-- a message it could not parse (ClickHouse docs, Kafka engine, virtual columns: "filled only in case of
-- exception during parsing"); the bytes themselves are on Kafka at topic/partition/offset.
-- Changed in place: ALTER ... MODIFY QUERY changes a view's query "without interrupting ingestion process"
-- (ClickHouse docs, ALTER TABLE ... MODIFY QUERY). Dropping and creating it again would lose samples here: the
-- engine consumes while at least one view is attached (StorageKafka::checkDependencies; docs: "To stop
-- receiving topic data ... detach the materialized view") and each queue has two, so what arrives while one is
-- missing is read and never written by it. This view changes before io_samples_mv (0173): in between a broken
-- sample reaches both tables, never neither.
ALTER TABLE ioscale.io_samples_dlq_mv MODIFY QUERY
{{io_sample_rules}}
SELECT
    'clickhouse-kafka' AS stage,
    _topic AS topic,
    toInt32(_partition) AS partition,
    toInt64(_offset) AS offset,
    if(length(_error) > 0, _error, io_sample_invalid) AS reason,
    if(length(_error) > 0, _raw_message,
       formatRowNoNewline('JSONEachRow', ts_ms, interval_ms, run_id, step_index, host, vm, target, direction, ops,
                          bytes, outstanding_ios, errors, latency_count, latency_sum_ns, latency_min_ns,
                          latency_max_ns, latency_hist_scheme, latency_bucket_index, latency_bucket_count,
                          percentile_q, percentile_ns, tags)) AS raw_message
FROM ioscale.io_samples_queue
WHERE length(_error) > 0 OR io_sample_invalid != ''
SETTINGS output_format_json_quote_denormals = 1, output_format_json_quote_64bit_integers = 0
