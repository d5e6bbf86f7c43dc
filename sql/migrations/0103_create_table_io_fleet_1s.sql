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
{{io_rollup_measures}},
{{latency_quantiles}},
    version               UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(window_start)
ORDER BY (run_id, step_index, window_start)
TTL toDateTime(emitted_at) + INTERVAL 90 DAY
