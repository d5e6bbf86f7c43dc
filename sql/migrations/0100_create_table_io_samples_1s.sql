-- The Flink analytics job's result tables (0100-0114) share these rules:
-- - Written at least once (stream-jobs AnalyticsJob, sink ClickHouseSink): a window that fires again with
--   late data, or a replay after a restart, inserts the row again. ReplacingMergeTree keeps one row per
--   ORDER BY key (= the row's identity), the one with the largest `version` (samples merged, which only grows
--   as a window or step takes in more data). Until a background merge runs, duplicates can coexist: read with
--   FINAL, or argMax(column, version) grouped by the key.
-- - The rollups (io_samples, io_fleet, cpu_samples, port_samples) come at three grains, 1 s, 10 s and 1 min,
--   computed by one keyed operator, one table per grain. Each family's first table is written out in full;
--   the other two are copies of it (CREATE TABLE ... AS: same columns, codecs, engine and keys) with their
--   own TTL where it differs. 1 s rows are kept 90 days, 10 s and 1 min rows 400 days.
-- - The rollups expire by emitted_at (when the row was computed), not by the window: a run imported from
--   years ago would otherwise be dropped on insert.
-- - Histogram columns use io_samples' codecs (0010).
-- - Column sets several tables share are written once, in fragments/: a name in double braces stands for
--   fragments/<name>.sql.
--
-- I/O rollup per source and direction over 1 s event-time windows: one row per (run, step, host, VM,
-- target, direction, window). Rates: ops / T, bytes / 10^6 / T, outstanding = sum(outstanding x interval) / T,
-- T = max(window, longest sample interval). Latency: exact count/sum/min/max/mean from the samples' fields;
-- quantiles from the merged histogram (sparse buckets kept, so rows merge further with sumMap), each with the
-- too-few-samples flag (value = exact max when N < ceil(10 / (1 - q))).
CREATE TABLE IF NOT EXISTS ioscale.io_samples_1s
(
    window_start          DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    window_end            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    run_id                LowCardinality(String),
    step_index            Int32                   CODEC(T64, ZSTD(1)),
    host                  LowCardinality(String),
    vm                    LowCardinality(String),
    target                LowCardinality(String),
    direction             LowCardinality(String),
{{io_rollup_measures}},
{{latency_quantiles}},
    version               UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(window_start)
PRIMARY KEY (run_id, step_index, window_start)
ORDER BY (run_id, step_index, window_start, host, vm, target, direction)
TTL toDateTime(emitted_at) + INTERVAL 90 DAY
