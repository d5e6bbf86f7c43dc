-- Each VM's and each source's figures over its step's measured window, computed once per step instead of at
-- every call of the SQL library queries that compare them: lagging_vms (grain vm) and step_latency_outliers
-- at grain source. Merged at each call, lagging_vms over all steps of the 320-VM, one-hour bench run costs
-- ~300 ms of ClickHouse CPU, ~100 of it in analysis alone, against a 300 ms p95 target. Filled by
-- step_windows_refresh (0136), a refreshable view, from the raw samples with the rules those queries apply:
-- io_samples FINAL inside STEP_ENDED's start..end, latency buckets merged, the p99 by the histogram's rank rule.
--
-- A row stands for the samples it was computed from: source_samples is the `samples` of the VM's or source's
-- step sum in io_samples_hist_sums (grain vm_step or source_step: every sample added, redeliveries included)
-- when it was computed, and window_start/window_end the window it used. A reader uses a row only while both
-- still match; any sample that arrives later, or a new window, sends that VM or source back to io_samples
-- FINAL until the view computes it again. So a row can be late, never wrong.
--
--   column            what
--   grain             vm: a VM over all its targets and directions (target, direction ''); source: one
--                     target and direction of a VM
--   samples           samples inside the window (a source: one per interval); 0 = none
--   ops ... max_ns    sums and extremes of those samples (latency_min_ns over samples that counted I/Os; 0
--                     when none did); interval_ms: the intervals' length summed
--   latency_n         I/Os in the merged histogram over the window (scheme-1 buckets)
--   p99_ns            its p99 by quantileExactWeighted's rank rule on the buckets, clamped to [min, max]; the
--                     exact max below latency_n = 1000 (histogram.required_n)
--   malformed_samples samples whose bucket arrays differ in length: left out of the histogram here, and a row
--                     with any is not used (the query merges from io_samples, which raises the error such a
--                     sample always raised); kept so that the step is not computed again and again
--   computed_at       when: the version (the newest computation wins)
CREATE TABLE IF NOT EXISTS ioscale.step_windows
(
    run_id            LowCardinality(String),
    step_index        Int32,
    grain             Enum8('vm' = 1, 'source' = 2),
    host              LowCardinality(String),
    vm                LowCardinality(String),
    target            LowCardinality(String),
    direction         LowCardinality(String),
    window_start      DateTime64(3, 'UTC'),
    window_end        DateTime64(3, 'UTC'),
    source_samples    UInt64,
    samples           UInt64,
    ops               UInt64,
    interval_ms       UInt64,
    latency_count     UInt64,
    latency_sum_ns    UInt64,
    latency_min_ns    UInt64,
    latency_max_ns    UInt64,
    latency_n         UInt64,
    p99_ns            UInt64,
    malformed_samples UInt64,
    computed_at       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (run_id, step_index, grain, host, vm, target, direction)
TTL toDateTime(computed_at) + INTERVAL 400 DAY
