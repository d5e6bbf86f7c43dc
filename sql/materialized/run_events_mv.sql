-- run_events from the Kafka queue: the events that decode and meet the Flink job's field rules
-- (fragments/run_event_rules.sql); the others go to dead_letters (run_events_dlq_mv.sql). A step's load is
-- flattened into columns (has_load says whether the event had one).
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.run_events_mv TO ioscale.run_events AS
{{run_event_rules}}
SELECT
    ts_ms AS ts,
    lower(event_type) AS event_type,
    run_id, scenario,
    lower(tool) AS tool,
    description, step_index, step_label,
    load IS NOT NULL AS has_load,
    ifNull(load.vm_count, 0) AS vm_count,
    ifNull(load.targets_per_vm, 0) AS targets_per_vm,
    ifNull(load.workers_per_target, 0) AS workers_per_target,
    ifNull(load.outstanding_ios_per_target, 0) AS outstanding_ios_per_target,
    ifNull(load.block_size_bytes, 0) AS block_size_bytes,
    ifNull(load.read_pct, 0) AS read_pct,
    ifNull(load.random_pct, 0) AS random_pct,
    ifNull(load.adapter, '') AS adapter,
    ifNull(load.config_labels, map()) AS config_labels,
    hosts,
    arrayMap(l -> (l.1, l.2, lower(l.3), l.4, l.5, l.6), links) AS links,
    start_ms AS start_ts,
    end_ms AS end_ts,
    tags
FROM ioscale.run_events_queue
WHERE length(_error) = 0 AND run_event_invalid = ''
