-- Universal Scalability Law fits, X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)), over a run's steps
-- completed so far: one row per (run, last step included), written each time a step completes, so the
-- history of the fit stays; the current fit is the row with the largest through_step. peak_n / peak_x are NULL
-- when there is no finite peak (kappa = 0: the curve rises towards lambda / sigma).
-- Written by the Flink analytics job (stream-jobs AnalyticsJob, sink ClickHouseSink) at least once: a window
-- that fires again with late data, or a replay after a restart, inserts the row again. ReplacingMergeTree
-- keeps one row per ORDER BY key (= the row's identity), the one with the largest `version` (samples merged,
-- which only grows as a window or step takes in more data). Until a background merge runs, duplicates can
-- coexist: read with FINAL, or argMax(column, version) grouped by the key.
CREATE TABLE IF NOT EXISTS ioscale.usl_fits
(
    run_id             LowCardinality(String),
    through_step       Int32                   CODEC(T64, ZSTD(1)),
    points             UInt32                  CODEC(T64, ZSTD(1)),
    metric             LowCardinality(String),
    load_axis          LowCardinality(String),
    fitted             Bool,
    reason             String                  CODEC(ZSTD(1)),
    lambda             Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    sigma              Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    kappa              Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    r_squared          Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    peak_n             Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    peak_x             Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    max_n              Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    peak_extrapolated  Bool,
    event_ts           DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    version            UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at         DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
-- No TTL: a few rows per step, and a run's results are the product (runs imported from years ago included).
-- No PARTITION BY: a re-emitted row must meet the row it replaces, and replacement never crosses partitions
-- (its time columns may differ between emissions). The table is small: a few rows per step.
ORDER BY (run_id, through_step)
