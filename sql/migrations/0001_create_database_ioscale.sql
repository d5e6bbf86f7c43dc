-- The product's database: every telemetry table, view and Kafka queue lives here. Atomic (the
-- default engine) so DROP/RENAME TABLE are instant and a dropped table's data is removed in the
-- background. The bookkeeping database ioscale_meta is created by the migration runner itself
-- (ioscale.provision.migrations): it must exist before the first migration can be recorded.
CREATE DATABASE IF NOT EXISTS ioscale
