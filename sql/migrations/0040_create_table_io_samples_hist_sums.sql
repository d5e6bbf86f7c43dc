-- Latency histograms of io_samples summed per step ahead of time, so the SQL library does not merge every
-- sample's ~20 buckets again at each query (a 320-VM, one-hour run: 0.96 M samples, 18 M bucket counts;
-- issue 4). Summed by io_samples_hist_sums_mv on every insert into io_samples (0042), backfilled once (0044):
--
--   grain        one row per                                     rows for that run   hist
--   source_step  run, step, direction, host, vm, target             2,944              its buckets
--   vm_step      run, step, host, vm (targets and directions)       1,472              its buckets
--   fleet_step   run, step, direction (every source)                   22              its buckets
--   step_ts      run, step, ts (a sample time of the step)          3,597              empty
--
-- A step's measured window is its sum minus the samples outside the window (ramp-up, after the end), found in
-- io_samples_hist_by_ts (0041) by their times, which step_ts lists. Bucket counts add and subtract exactly:
-- the result is the histogram the raw samples merge to. (Bucket sums per sample time were tried: ~5 us per
-- inserted row to compute, more than the queries save.)
--
-- Exactness against duplicates: the Kafka engine delivers at least once. io_samples collapses a redelivered
-- sample (ReplacingMergeTree, read with FINAL); a sum cannot, so a redelivered sample counts twice here. Each
-- source_step row therefore keeps how many samples were added (`samples`) and the set of their timestamps
-- (`sample_ts`, epoch ms mod 2^32; a collision can only make a clean source look dirty): samples > distinct
-- timestamps means some sample was added twice, and the queries merge that source -- for a VM's or the
-- fleet's figures, that VM, or that step and direction -- from io_samples FINAL instead, as before. A sample
-- whose bucket arrays differ in length is kept out of `sample_ts` to the same effect (io_samples FINAL then
-- raises the error it always did). All grains come from one view and one insert, so a redelivery reaches all
-- of them or none. Not detected: a DELETE or ALTER on io_samples -- mirror it here and in
-- io_samples_hist_by_ts. A row expires with its newest sample (io_samples: 400 days after arrival, 0028).
CREATE TABLE IF NOT EXISTS ioscale.io_samples_hist_sums
(
    run_id        LowCardinality(String),
    step_index    Int32,
    grain         Enum8('source_step' = 1, 'vm_step' = 2, 'fleet_step' = 3, 'step_ts' = 4),
    direction     LowCardinality(String),                              -- '' at grains vm_step, step_ts
    ts            DateTime64(3, 'UTC'),                                -- step_ts: the sample time; else 1970-01-01
    host          LowCardinality(String),                              -- source_step, vm_step; else ''
    vm            LowCardinality(String),
    target        LowCardinality(String),
    samples       SimpleAggregateFunction(sum, UInt64),                -- samples added, redeliveries included
    sample_ts     AggregateFunction(groupBitmap, UInt32),              -- source_step: distinct sample timestamps
    hist          SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(ZSTD(1)),   -- scheme-1 buckets
    ingested_at   SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (run_id, step_index, grain, direction, ts, host, vm, target)
TTL toDateTime(ingested_at) + INTERVAL 400 DAY
SETTINGS index_granularity = 64
