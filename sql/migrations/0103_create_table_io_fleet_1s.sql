-- Fleet-wide I/O per (run, step) over 1 s event-time windows: every source, reads and writes together.
-- The histogram is the merge of all the window's samples, i.e. the histogram of every I/O: fleet percentiles
-- are exact over buckets (within 1/256), never averages of per-VM percentiles. `sources` = distinct
-- (host, VM, target) seen. Rates as in io_samples_1s: the fleet's iops is the sum over sources.
-- Rules of the result tables: see 0100.
CREATE TABLE IF NOT EXISTS ioscale.io_fleet_1s
(
    window_start          DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    window_end            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    run_id                LowCardinality(String),
    step_index            Int32                   CODEC(T64, ZSTD(1)),
    sources               UInt32                  CODEC(T64, ZSTD(1)),
    read_ops              UInt64                  CODEC(T64, ZSTD(1)),
    write_ops             UInt64                  CODEC(T64, ZSTD(1)),
    read_bytes            UInt64                  CODEC(T64, ZSTD(1)),
    write_bytes           UInt64                  CODEC(T64, ZSTD(1)),
    samples               UInt64                  CODEC(T64, ZSTD(1)),
    ops                   UInt64                  CODEC(T64, ZSTD(1)),
    bytes                 UInt64                  CODEC(T64, ZSTD(1)),
    errors                UInt64                  CODEC(T64, ZSTD(1)),
    iops                  Float64                 CODEC(Gorilla, ZSTD(1)),
    mb_per_s              Float64                 CODEC(Gorilla, ZSTD(1)),
    outstanding_ios       Float64                 CODEC(Gorilla, ZSTD(1)),
    latency_count         UInt64                  CODEC(T64, ZSTD(1)),
    latency_sum_ns        UInt64                  CODEC(T64, ZSTD(1)),
    latency_min_ns        UInt64                  CODEC(T64, ZSTD(1)),
    latency_max_ns        UInt64                  CODEC(T64, ZSTD(1)),
    latency_mean_ns       Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    latency_hist_scheme   UInt8,
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
    p99_999_too_few       Bool,
    version               UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(window_start)
ORDER BY (run_id, step_index, window_start)
TTL toDateTime(emitted_at) + INTERVAL 90 DAY
