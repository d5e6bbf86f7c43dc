-- cpu_samples_10s (0106) over 1 s windows: the same table, another name, another TTL (see 0100).
CREATE TABLE IF NOT EXISTS ioscale.cpu_samples_1s AS ioscale.cpu_samples_10s
TTL toDateTime(emitted_at) + INTERVAL 90 DAY
