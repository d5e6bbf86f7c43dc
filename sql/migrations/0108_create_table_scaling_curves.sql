-- One row per (run, step): the step's steady state (ramp-up and tail excluded by SteadyState; steady_reason
-- says how it was chosen, steady_usable whether to trust it) with IOPS, MB/s, mean latency and the quantiles of
-- the merged histogram of every I/O in it (p99.999 is flagged too-few below N = 10^6), CPU %, interrupts/s and
-- port utilization over the same seconds; the gain over the previous step, the efficiency against linear
-- scaling from the first step (ScalingCurve), the Little's-law check (outstanding vs IOPS x mean latency) and
-- the saturation verdict (SaturationDetector). Emitted when the watermark passes the step's end (STEP_ENDED).
-- `load` is the x of the curve along `load_axis` (job option --load-axis). version = samples in the whole step.
-- Rules of the result tables: see 0100.
CREATE TABLE IF NOT EXISTS ioscale.scaling_curves
(
    run_id                      LowCardinality(String),
    scenario                    LowCardinality(String),
    step_index                  Int32                     CODEC(T64, ZSTD(1)),
    step_label                  String                    CODEC(ZSTD(1)),
    load_axis                   LowCardinality(String),
    load                        Float64                   CODEC(Gorilla, ZSTD(1)),
    vm_count                    Int32                     CODEC(T64, ZSTD(1)),
    targets_per_vm              Int32                     CODEC(T64, ZSTD(1)),
    workers_per_target          Int32                     CODEC(T64, ZSTD(1)),
    outstanding_ios_per_target  Int32                     CODEC(T64, ZSTD(1)),
    block_size_bytes            Int32                     CODEC(T64, ZSTD(1)),
    read_pct                    Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    random_pct                  Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    step_start                  DateTime64(3, 'UTC')      CODEC(DoubleDelta, ZSTD(1)),
    step_end                    DateTime64(3, 'UTC')      CODEC(DoubleDelta, ZSTD(1)),
    steady_start                DateTime64(3, 'UTC')      CODEC(DoubleDelta, ZSTD(1)),
    steady_end                  DateTime64(3, 'UTC')      CODEC(DoubleDelta, ZSTD(1)),
    steady_seconds              UInt32                    CODEC(T64, ZSTD(1)),
    steady_reason               LowCardinality(String),
    steady_usable               Bool,
    steady_cv                   Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    steady_detail               String                    CODEC(ZSTD(1)),
    ops                         UInt64                    CODEC(T64, ZSTD(1)),
    bytes                       UInt64                    CODEC(T64, ZSTD(1)),
    iops                        Float64                   CODEC(Gorilla, ZSTD(1)),
    mb_per_s                    Float64                   CODEC(Gorilla, ZSTD(1)),
    outstanding_ios             Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    latency_count               UInt64                    CODEC(T64, ZSTD(1)),
    latency_sum_ns              UInt64                    CODEC(T64, ZSTD(1)),
    latency_mean_ns             Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    latency_max_ns              UInt64                    CODEC(T64, ZSTD(1)),
{{latency_quantiles}},
    cpu_utilization_pct         Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    cpu_max_utilization_pct     Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    cpu_hottest_host            LowCardinality(String),
    interrupts_per_s            Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    cpu_hosts                   Array(String)             CODEC(ZSTD(1)),
    cpu_host_utilization_pct    Array(Nullable(Float64))  CODEC(ZSTD(1)),
    port_max_utilization_pct    Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    port_hottest                String                    CODEC(ZSTD(1)),
    port_names                  Array(String)             CODEC(ZSTD(1)),
    port_utilization_pct        Array(Nullable(Float64))  CODEC(ZSTD(1)),
    load_increase_pct           Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    throughput_gain_pct         Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    marginal_gain_ratio         Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    scaling_efficiency_pct      Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    latency_growth_pct          Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    littles_expected_ios        Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    littles_measured_ios        Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    littles_error_pct           Nullable(Float64)         CODEC(Gorilla, ZSTD(1)),
    littles_checked             Bool,
    littles_consistent          Bool,
    saturation_status           LowCardinality(String),
    saturation_bottleneck       LowCardinality(String),
    saturation_evidence         String                    CODEC(ZSTD(1)),
    step_samples                UInt64                    CODEC(T64, ZSTD(1)),
    version                     UInt64                    CODEC(T64, ZSTD(1)),
    emitted_at                  DateTime64(3, 'UTC')      CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
-- No TTL: a few rows per step, and a run's results are the product (runs imported from years ago included).
-- No PARTITION BY: a re-emitted row must meet the row it replaces, and replacement never crosses partitions
-- (its time columns may differ between emissions). The table is small: a few rows per step.
ORDER BY (run_id, step_index)
