-- Bucket counts through T64 before ZSTD, indexes through Delta, as for io_samples (0046): cheaper merges of
-- the Flink job's histogram rows and a smaller table. Only the codec changes; no data is rewritten now.
ALTER TABLE ioscale.io_fleet_1s
    MODIFY COLUMN latency_bucket_index Array(UInt16) CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN latency_bucket_count Array(UInt64) CODEC(T64, ZSTD(1))
