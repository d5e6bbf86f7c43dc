-- An I/O rollup row's counts and rates over its window and the exact latency statistics of its samples
-- (io_samples_1s, io_fleet_1s and their other grains).
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
    latency_hist_scheme   UInt8
