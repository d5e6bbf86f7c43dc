-- cpu_samples_10s (0106) over 1 min windows: the same table, another name (see 0100).
CREATE TABLE IF NOT EXISTS ioscale.cpu_samples_1m AS ioscale.cpu_samples_10s
