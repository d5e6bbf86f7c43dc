-- The field rules of a port sample, as the Flink job checks them (AvroRecords.portSample), in its order and with
-- its words: port_sample_invalid is '' for a sample that meets them, else 'invalid: ' and the first rule broken
-- (sql/materialized/port_samples_*mv.sql; cases in tests/fixtures/record_rules/port_samples.json). Columns are
-- named with their table, as in io_sample_rules.
WITH
    ioscaleNonNegativeRule(
        ['link_speed_bps', 'rx_bytes', 'tx_bytes', 'rx_frames', 'tx_frames', 'rx_errors', 'tx_errors', 'interrupts',
         'interval_ms'],
        [port_samples_queue.link_speed_bps, port_samples_queue.rx_bytes, port_samples_queue.tx_bytes,
         port_samples_queue.rx_frames, port_samples_queue.tx_frames, port_samples_queue.rx_errors,
         port_samples_queue.tx_errors, port_samples_queue.interrupts, port_samples_queue.interval_ms]) AS rule_broken,
    if(rule_broken = '', '', concat('invalid: ', rule_broken)) AS port_sample_invalid
