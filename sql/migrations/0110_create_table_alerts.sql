-- Saturation and SLO-breach events of the analytics job, also sent as JSON to the Kafka topic ioscale.alerts
-- (key = alert_id). kind: saturation | slo_breach; phase: live (raised while the step runs, once its steady
-- state is long enough) | final (at the step's end). resource: 'port <host>/<port> RX', 'cpu <host>',
-- 'device', or 'latency <objective>'; value/threshold: the number compared (utilization %, latency ns, latency
-- growth %). alert_id = run/step/kind/phase/resource, the ORDER BY identity.
-- Written by the Flink analytics job (stream-jobs AnalyticsJob, sink ClickHouseSink) at least once: a window
-- that fires again with late data, or a replay after a restart, inserts the row again. ReplacingMergeTree
-- keeps one row per ORDER BY key (= the row's identity), the one with the largest `version` (samples merged,
-- which only grows as a window or step takes in more data). Until a background merge runs, duplicates can
-- coexist: read with FINAL, or argMax(column, version) grouped by the key.
CREATE TABLE IF NOT EXISTS ioscale.alerts
(
    alert_id    String                  CODEC(ZSTD(1)),
    kind        LowCardinality(String),
    phase       LowCardinality(String),
    severity    LowCardinality(String),
    run_id      LowCardinality(String),
    step_index  Int32                   CODEC(T64, ZSTD(1)),
    resource    LowCardinality(String),
    value       Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    threshold   Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    evidence    String                  CODEC(ZSTD(1)),
    event_ts    DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    version     UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at  DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
-- No TTL: a few rows per step, and a run's results are the product (runs imported from years ago included).
-- No PARTITION BY: a re-emitted row must meet the row it replaces, and replacement never crosses partitions
-- (its time columns may differ between emissions). The table is small: a few rows per step.
ORDER BY (run_id, step_index, kind, phase, resource)
