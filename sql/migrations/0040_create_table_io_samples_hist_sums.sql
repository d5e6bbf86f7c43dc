-- Latency histograms of io_samples summed per step ahead of time, so the SQL library does not merge every
-- sample's ~20 buckets again at each query (a 320-VM, one-hour run: 0.96 M samples, 18 M bucket counts).
-- Summed by io_samples_hist_sums_mv (0042) on every insert into io_samples:
--
--   grain        one row per                                     rows for that run   hist
--   source_step  run, step, direction, host, vm, target             2,944              its buckets
--   vm_step      run, step, host, vm (targets and directions)       1,472              its buckets
--   fleet_step   run, step, direction (every source)                   22              its buckets
--   step_ts      run, step, ts (a sample time of the step)          3,597              empty
--
-- A step's measured window is its sum minus the samples outside the window (ramp-up, after the end), found in
-- io_samples_hist_by_ts (0041) by their times, which step_ts lists. Bucket counts add and subtract exactly:
-- the result is the histogram the raw samples merge to. (Bucket sums per sample time would cost ~5 us per
-- inserted row to compute, more than the queries save.)
--
-- The samples' additive counters and latency extremes sit next to the histograms, at every grain, so the
-- queries need not read them from io_samples FINAL over the whole run:
--
--   column              what                                                   a window's value
--   counted_samples     samples added to the columns below                     (a check, see below)
--   ops, bytes          sums                                                   step sum - outside samples
--   latency_count       sum                                                    ditto
--   latency_sum_ns      sum                                                    ditto
--   interval_ms_total   sum of interval_ms                                     ditto
--   outstanding_io_ms   sum of outstanding_ios x interval_ms (Float64)          ditto
--   latency_min_ns      least latency_min_ns of the samples that counted I/Os  see below
--                       (18446744073709551615 when none did)
--   latency_max_ns      greatest latency_max_ns                                see below
--
-- At grain step_ts the row is one sample time of the step, so a step window's fleet figures are these columns
-- over the step_ts rows inside it -- min and max included, exactly (scaling_curve_raw, step_latency_five_nines).
-- The other grains carry them too, for whole steps; a per-VM window would need the samples outside it
-- subtracted and its min/max found again, which is slower than lagging_vms' own read (see step_windows, 0135).
--
-- Exactness against duplicates: the Kafka engine delivers at least once. io_samples collapses a redelivered
-- sample (ReplacingMergeTree, read with FINAL); a sum cannot, so a redelivered sample counts twice here. Each
-- source_step row therefore keeps how many samples were added (`samples`) and the set of their timestamps
-- (`sample_ts`, epoch ms mod 2^32; a collision can only make a clean source look dirty): samples > distinct
-- timestamps means some sample was added twice, and the queries merge that source -- for a VM's or the
-- fleet's figures, that VM, or that step and direction -- from io_samples FINAL instead. A sample whose
-- bucket arrays differ in length is kept out of `sample_ts` to the same effect (io_samples FINAL then raises
-- the error it always did). All grains and columns come from one view and one insert, so a redelivery
-- reaches all of them or none. The view adds every sample to the counters too (counted_samples = samples);
-- rows written any other way that break that equality send their key to io_samples FINAL in the queries.
-- Not detected: a DELETE or ALTER on io_samples -- mirror it here and in io_samples_hist_by_ts. A row expires
-- with its newest sample (io_samples: 400 days after arrival). hist: codecs as io_samples' buckets (0010).
--
-- Few parts: the SQL library reads the table up to five times per query without FINAL, and each part costs
-- every read (the 320-VM hour in 16 parts vs one, ClickHouse CPU per call: step_latency_five_nines 279 vs 159
-- ms, scaling_curve_raw 357 vs 252). merge_selector_base 5 (ClickHouse's default, against the server-wide 20 of
-- config.xml) merges its small parts early: its rows collapse when merged (one per key), so that stays cheap.
-- Once nothing has arrived for 60 s the partition is merged into one part: the run just ended is read at its
-- cheapest.
CREATE TABLE IF NOT EXISTS ioscale.io_samples_hist_sums
(
    run_id             LowCardinality(String),
    step_index         Int32,
    grain              Enum8('source_step' = 1, 'vm_step' = 2, 'fleet_step' = 3, 'step_ts' = 4),
    direction          LowCardinality(String),                              -- '' at grains vm_step, step_ts
    ts                 DateTime64(3, 'UTC'),                                -- step_ts: the sample time; else 1970-01-01
    host               LowCardinality(String),                              -- source_step, vm_step; else ''
    vm                 LowCardinality(String),
    target             LowCardinality(String),
    samples            SimpleAggregateFunction(sum, UInt64),                -- samples added, redeliveries included
    sample_ts          AggregateFunction(groupBitmap, UInt32),              -- source_step: distinct sample timestamps
    hist               SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(1)),  -- scheme-1 buckets
    counted_samples    SimpleAggregateFunction(sum, UInt64),
    ops                SimpleAggregateFunction(sum, UInt64),
    bytes              SimpleAggregateFunction(sum, UInt64),
    latency_count      SimpleAggregateFunction(sum, UInt64),
    latency_sum_ns     SimpleAggregateFunction(sum, UInt64),
    interval_ms_total  SimpleAggregateFunction(sum, UInt64),
    outstanding_io_ms  SimpleAggregateFunction(sum, Float64),
    latency_min_ns     SimpleAggregateFunction(min, UInt64) DEFAULT 18446744073709551615,
    latency_max_ns     SimpleAggregateFunction(max, UInt64),
    ingested_at        SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
ORDER BY (run_id, step_index, grain, direction, ts, host, vm, target)
TTL toDateTime(ingested_at) + INTERVAL 400 DAY
SETTINGS index_granularity = 64, merge_selector_base = 5, min_age_to_force_merge_seconds = 60,
         min_age_to_force_merge_on_partition_only = 1
