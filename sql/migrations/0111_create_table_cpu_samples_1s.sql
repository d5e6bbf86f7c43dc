-- Same columns, key and rules as cpu_samples_10s (0106): the analytics job computes 1 s, 10 s and 1 min from one
-- keyed operator (GrainRollupOperator) and writes each grain to its table.
-- CPU and interrupt load per (run, step, host, VM, scope) over 1 s event-time windows. From the scope's
-- total samples (cpu = -1), interval-weighted; a scope that reports only per-CPU samples gets their mean
-- percentages and summed rates. max_cpu_utilization_pct / hottest_cpu: the busiest single logical CPU (NULL / -1
-- without per-CPU samples), which shows an interrupt-bound CPU the total hides. NULL = not reported.
-- Written by the Flink analytics job (stream-jobs AnalyticsJob, sink ClickHouseSink) at least once: a window
-- that fires again with late data, or a replay after a restart, inserts the row again. ReplacingMergeTree
-- keeps one row per ORDER BY key (= the row's identity), the one with the largest `version` (samples merged,
-- which only grows as a window or step takes in more data). Until a background merge runs, duplicates can
-- coexist: read with FINAL, or argMax(column, version) grouped by the key.
CREATE TABLE IF NOT EXISTS ioscale.cpu_samples_1s
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
-- TTL on emitted_at (when the row was computed), not on the window: a run imported from years ago would
-- otherwise be dropped on insert.
TTL toDateTime(emitted_at) + INTERVAL 90 DAY
