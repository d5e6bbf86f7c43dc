CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.port_samples_mv TO ioscale.port_samples AS
SELECT
    ts_ms AS ts,
    toUInt32(greatest(interval_ms, 0)) AS interval_ms,
    run_id, step_index, host, port_id,
    lower(kind) AS kind,
    queue, vm,
    toUInt64(greatest(link_speed_bps, 0)) AS link_speed_bps,
    toUInt64(greatest(rx_bytes, 0)) AS rx_bytes,
    toUInt64(greatest(tx_bytes, 0)) AS tx_bytes,
    toUInt64(greatest(rx_frames, 0)) AS rx_frames,
    toUInt64(greatest(tx_frames, 0)) AS tx_frames,
    toUInt64(greatest(rx_errors, 0)) AS rx_errors,
    toUInt64(greatest(tx_errors, 0)) AS tx_errors,
    toUInt64(greatest(interrupts, 0)) AS interrupts,
    tags
FROM ioscale.port_samples_queue
WHERE length(_error) = 0
