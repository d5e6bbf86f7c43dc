CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.run_events_dlq_mv TO ioscale.dead_letters AS
SELECT 'clickhouse-kafka' AS stage, _topic AS topic, toInt32(_partition) AS partition,
       toInt64(_offset) AS offset, _error AS reason, _raw_message AS raw_message
FROM ioscale.run_events_queue
WHERE length(_error) > 0
