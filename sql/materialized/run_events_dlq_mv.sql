-- dead_letters from the run_events queue: parse errors, and the events that break a field rule of the Flink job
-- (fragments/run_event_rules.sql: a link's capacity negative), raw_message the decoded record as JSON, as
-- io_samples_dlq_mv.sql says.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.run_events_dlq_mv TO ioscale.dead_letters AS
{{run_event_rules}}
SELECT
    'clickhouse-kafka' AS stage,
    _topic AS topic,
    toInt32(_partition) AS partition,
    toInt64(_offset) AS offset,
    if(length(_error) > 0, _error, run_event_invalid) AS reason,
    if(length(_error) > 0, _raw_message,
       formatRowNoNewline('JSONEachRow', event_type, ts_ms, run_id, scenario, tool, description, hosts, step_index,
                          step_label, load, links, start_ms, end_ms, tags)) AS raw_message
FROM ioscale.run_events_queue
WHERE length(_error) > 0 OR run_event_invalid != ''
SETTINGS output_format_json_quote_denormals = 1, output_format_json_quote_64bit_integers = 0
