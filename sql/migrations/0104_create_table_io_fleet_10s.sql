-- io_fleet_1s (0103) over 10 s windows: the same table, another name, another TTL (see 0100).
CREATE TABLE IF NOT EXISTS ioscale.io_fleet_10s AS ioscale.io_fleet_1s
TTL toDateTime(emitted_at) + INTERVAL 400 DAY
