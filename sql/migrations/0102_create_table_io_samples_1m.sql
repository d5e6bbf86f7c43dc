-- io_samples_1s (0100) over 1 min windows: the same table, another name, another TTL (see 0100).
CREATE TABLE IF NOT EXISTS ioscale.io_samples_1m AS ioscale.io_samples_1s
TTL toDateTime(emitted_at) + INTERVAL 400 DAY
