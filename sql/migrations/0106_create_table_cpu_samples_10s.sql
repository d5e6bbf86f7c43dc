-- CPU and interrupt load per (run, step, host, VM, scope) over 10 s event-time windows. From the scope's
-- total samples (cpu = -1), interval-weighted; a scope that reports only per-CPU samples gets their mean
-- percentages and summed rates. max_cpu_utilization_pct / hottest_cpu: the busiest single logical CPU (NULL / -1
-- without per-CPU samples), which shows an interrupt-bound CPU the total hides. NULL = not reported.
-- Rules of the result tables: see 0100.
CREATE TABLE IF NOT EXISTS ioscale.cpu_samples_10s
(
    window_start             DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    window_end               DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    run_id                   LowCardinality(String),
    step_index               Int32                   CODEC(T64, ZSTD(1)),
    host                     LowCardinality(String),
    vm                       LowCardinality(String),
    scope                    LowCardinality(String),
    samples                  UInt32                  CODEC(T64, ZSTD(1)),
    per_cpu_samples          UInt32                  CODEC(T64, ZSTD(1)),
    logical_processors       UInt16                  CODEC(T64, ZSTD(1)),
    utilization_pct          Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    max_utilization_pct      Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    user_pct                 Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    privileged_pct           Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    dpc_pct                  Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    interrupt_pct            Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    iowait_pct               Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    interrupts_per_s         Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    dpcs_per_s               Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    max_cpu_utilization_pct  Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    hottest_cpu              Int32                   CODEC(T64, ZSTD(1)),
    version                  UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at               DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(window_start)
PRIMARY KEY (run_id, step_index, window_start)
ORDER BY (run_id, step_index, window_start, host, vm, scope)
TTL toDateTime(emitted_at) + INTERVAL 400 DAY
