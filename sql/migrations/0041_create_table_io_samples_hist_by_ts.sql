-- The latency histogram of every io_samples row again, ordered by time within a step, so the samples outside
-- a step's measured window (the ramp-up, anything after the end) are found by the primary key -- their times
-- are the step_ts rows of io_samples_hist_sums (0040) -- rather than by decompressing every histogram of the
-- run (io_samples is ordered by source first: 18 M bucket counts for a 320-VM, one-hour run). The SQL
-- library subtracts them from io_samples_hist_sums' per-step sums. Same identity and version as io_samples
-- (ReplacingMergeTree on ingested_at): read with FINAL, it holds the rows io_samples FINAL holds. Filled by
-- io_samples_hist_by_ts_mv (0043). hist: scheme-1 buckets as a Map; empty for other schemes and for bucket
-- arrays of unequal lengths (those sources are read from io_samples, see 0040).
-- ~45 MiB for that run (io_samples: ~60 MiB). index_granularity 1024: the rows outside a window are few.
CREATE TABLE IF NOT EXISTS ioscale.io_samples_hist_by_ts
(
    ts            DateTime64(3, 'UTC')   CODEC(DoubleDelta, ZSTD(1)),
    run_id        LowCardinality(String),
    step_index    Int32                  CODEC(T64, ZSTD(1)),
    host          LowCardinality(String),
    vm            LowCardinality(String),
    target        LowCardinality(String),
    direction     LowCardinality(String),
    hist          Map(UInt16, UInt64)    CODEC(T64, ZSTD(1)),   -- codecs as io_samples' buckets (0010)
    ingested_at   DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (run_id, step_index, ts, host, vm, target, direction)
TTL toDateTime(ingested_at) + INTERVAL 400 DAY
SETTINGS index_granularity = 1024
