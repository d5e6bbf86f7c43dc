-- Saturation and SLO-breach events of the analytics job, also sent as JSON to the Kafka topic ioscale.alerts
-- (key = alert_id). kind: saturation | slo_breach; phase: live (raised while the step runs, once its steady
-- state is long enough) | final (at the step's end). resource: 'port <host>/<port> RX', 'cpu <host>',
-- 'device', or 'latency <objective>'; value/threshold: the number compared (utilization %, latency ns, latency
-- growth %). alert_id = run/step/kind/phase/resource, the ORDER BY identity.
-- Rules of the result tables: see 0100.
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
-- No TTL, no PARTITION BY: as scaling_curves (0108).
ORDER BY (run_id, step_index, kind, phase, resource)
