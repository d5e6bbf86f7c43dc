-- The field rules of a run event, as the Flink job checks them (AvroRecords.runEvent): each link's speed_bps,
-- then its payload_bytes_per_s, link by link, not negative. run_event_invalid is '' for an event that meets
-- them, else 'invalid: ' and the first rule broken (sql/materialized/run_events_*mv.sql; cases in
-- tests/fixtures/record_rules/run_events.json). Columns are named with their table, as in io_sample_rules.
WITH
    ioscaleNonNegativeRule(
        arrayFlatten(arrayMap(l -> ['links.speed_bps', 'links.payload_bytes_per_s'], run_events_queue.links)),
        arrayFlatten(arrayMap(l -> [l.speed_bps, l.payload_bytes_per_s], run_events_queue.links))) AS rule_broken,
    if(rule_broken = '', '', concat('invalid: ', rule_broken)) AS run_event_invalid
