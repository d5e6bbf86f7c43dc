-- Expire raw rows by when they arrived, not by their sample time: an imported 2009 Iometer run
-- would otherwise be past its TTL on insert and vanish at the next merge (found in review of 0010-0019).
ALTER TABLE ioscale.io_samples MODIFY TTL toDateTime(ingested_at) + INTERVAL 400 DAY
