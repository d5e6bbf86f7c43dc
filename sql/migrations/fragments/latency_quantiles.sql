-- A merged latency histogram (sparse buckets, so rows merge further with sumMap), the I/Os behind it and its
-- quantiles, each with its too-few-samples flag (the I/O rollups and scaling_curves).
    latency_bucket_index  Array(UInt16)           CODEC(Delta, ZSTD(1)),
    latency_bucket_count  Array(UInt64)           CODEC(T64, ZSTD(1)),
    latency_n             UInt64                  CODEC(T64, ZSTD(1)),
    p50_ns                UInt64                  CODEC(T64, ZSTD(1)),
    p90_ns                UInt64                  CODEC(T64, ZSTD(1)),
    p99_ns                UInt64                  CODEC(T64, ZSTD(1)),
    p99_9_ns              UInt64                  CODEC(T64, ZSTD(1)),
    p99_99_ns             UInt64                  CODEC(T64, ZSTD(1)),
    p99_999_ns            UInt64                  CODEC(T64, ZSTD(1)),
    p50_too_few           Bool,
    p90_too_few           Bool,
    p99_too_few           Bool,
    p99_9_too_few         Bool,
    p99_99_too_few        Bool,
    p99_999_too_few       Bool
