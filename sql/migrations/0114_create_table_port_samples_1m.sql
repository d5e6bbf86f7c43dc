-- port_samples_10s (0107) over 1 min windows: the same table, another name (see 0100).
CREATE TABLE IF NOT EXISTS ioscale.port_samples_1m AS ioscale.port_samples_10s
