-- Universal Scalability Law fits, X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)), over a run's steps
-- completed so far: one row per (run, last step included), written each time a step completes, so the
-- history of the fit stays; the current fit is the row with the largest through_step. peak_n / peak_x are NULL
-- when there is no finite peak (kappa = 0: the curve rises towards lambda / sigma).
-- Rules of the result tables: see 0100.
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
-- No TTL, no PARTITION BY: as scaling_curves (0108).
ORDER BY (run_id, through_step)
