-- The quantile columns of the latency_quantiles fragment, NULL where the histogram holds no I/O (latency_n = 0:
-- a source that sends no buckets, such as Iometer or DISKSPD without its latency table): no percentile exists
-- there, and a 0 or the max in its place reads as one. Rows written before hold 0 there and are set to NULL.
    MODIFY COLUMN p50_ns      Nullable(UInt64)  CODEC(T64, ZSTD(1)),
    MODIFY COLUMN p90_ns      Nullable(UInt64)  CODEC(T64, ZSTD(1)),
    MODIFY COLUMN p99_ns      Nullable(UInt64)  CODEC(T64, ZSTD(1)),
    MODIFY COLUMN p99_9_ns    Nullable(UInt64)  CODEC(T64, ZSTD(1)),
    MODIFY COLUMN p99_99_ns   Nullable(UInt64)  CODEC(T64, ZSTD(1)),
    MODIFY COLUMN p99_999_ns  Nullable(UInt64)  CODEC(T64, ZSTD(1)),
    UPDATE p50_ns = NULL, p90_ns = NULL, p99_ns = NULL, p99_9_ns = NULL, p99_99_ns = NULL, p99_999_ns = NULL
        WHERE latency_n = 0
