-- port_samples_10s (0107) over 1 s windows: the same table, another name, another TTL (see 0100).
CREATE TABLE IF NOT EXISTS ioscale.port_samples_1s AS ioscale.port_samples_10s
TTL toDateTime(emitted_at) + INTERVAL 90 DAY
