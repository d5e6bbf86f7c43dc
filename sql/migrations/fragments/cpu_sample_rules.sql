-- The field rules of a CPU sample, as the Flink job checks them (AvroRecords.cpuSample), in its order and with
-- its words: cpu_sample_invalid is '' for a sample that meets them, else 'invalid: ' and the first rule broken
-- (sql/materialized/cpu_samples_*mv.sql; cases in tests/fixtures/record_rules/cpu_samples.json). The other
-- percentages and rates are not checked, by either path. Columns are named with their table, as in io_sample_rules.
WITH
    arrayFirst(rule -> rule != '', [
        ioscaleNonNegativeFiniteRule('utilization_pct', cpu_samples_queue.utilization_pct),
        ioscaleNonNegativeRule(['interval_ms'], [cpu_samples_queue.interval_ms])]) AS rule_broken,
    if(rule_broken = '', '', concat('invalid: ', rule_broken)) AS cpu_sample_invalid
