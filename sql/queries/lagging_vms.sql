-- VMs that lag the rest of the fleet within a step: IOPS below, or latency above, the fleet's median VM.
--
-- In a fleet test every VM runs the same load, so one VM far from its peers points at a problem that the
-- fleet totals hide: a noisy neighbour, a VM on a congested path, a host with a slower disk, a VM that stopped
-- reporting. Each VM (all its targets and both directions) is measured over the step's window and compared
-- with the median VM of the same step.
--
-- Parameters:
--   run_id          String                                the run (see `ioscale sql run_list`)
--   step_index      Int32 = -1                            step, 0-based; -1 = every step
--   threshold_pct   Float64 = 20                          how far from the median counts as lagging, %
--   metric          String = any {any|iops|mean_latency|p99}  what to compare: any = any of the three
--   show_all        Bool = false                          list every VM, not only the lagging ones
--
-- Columns:
--   step_index             step, 0-based
--   host                   physical host
--   vm                     VM ('' = I/O issued by the host itself)
--   samples                samples the VM reported in the window (one per target, direction and interval)
--   iops                   the VM's I/Os per second over the step's window
--   median_iops            the median VM's IOPS in this step
--   iops_vs_median_pct     (iops / median_iops - 1) x 100: negative = slower than its peers
--   mean_latency_us        the VM's exact mean latency, microseconds
--   median_mean_latency_us the median VM's mean latency, microseconds
--   mean_latency_vs_median_pct  (mean / median - 1) x 100: positive = slower than its peers
--   p99_us                 the VM's own p99 from its merged histogram, microseconds (its max below N = 1000)
--   median_p99_us          the median VM's p99, microseconds
--   p99_vs_median_pct      (p99 / median - 1) x 100
--   latency_n              I/Os in the VM's merged histogram
--   lagging                true when a compared metric is beyond threshold_pct on the slow side
--   reason                 which metrics lag, e.g. 'iops -35.2%; p99 +80.1%'
--
-- Notes:
--   The median is quantileExact(0.5) over the VMs (the upper median for an even count): exact, and robust to
--   the laggards themselves, unlike the mean. Comparing VMs by their own p99 is fine -- each is a real
--   percentile of that VM's I/Os; only fleet-wide percentiles must never be averaged from them.
--   IOPS divide by the step's measured window (STEP_ENDED), or by the step's observed span when it has not
--   ended, so a VM that stopped reporting part-way shows as lagging instead of looking normal.
--   A step mixing workloads (e.g. 2 VMs reading + 2 writing) compares unlike VMs: read the result per workload.
--   FINAL: the Kafka engine delivers at least once; FINAL collapses replayed samples.
--   Speed (issue 4): merging every sample's ~20 buckets again took ~2 s over all steps of a 320-VM, one-hour
--   run. Each VM's histogram summed over its step is kept in io_samples_hist_sums (grain vm_step, migration
--   0040); its window is that sum minus the histograms of its samples outside the window (ramp-up, after the
--   end), found by time in io_samples_hist_by_ts (0041). Counts add and subtract exactly. Its p99 follows
--   quantileExactWeighted's rule over (representative, count) -- the first bucket whose running count
--   reaches ceil(0.99 x N) -- on the buckets sorted (a quantile state per VM cost ~3x more). Each (bucket,
--   sign, count) is packed into one UInt64 so that one plain arraySort orders them, and a VM's sum meets its
--   outside samples in a join rather than a GROUP BY over every bucket (12 % less CPU over all steps). The
--   counters, min and max still come from io_samples FINAL (cheap without the bucket arrays). A VM with a
--   sample counted twice in its sum (see 0040), or a step without STEP_ENDED (its samples are still
--   arriving), is merged from io_samples FINAL as before, found by primary key (nothing read when none).
--   Tried and withdrawn (session 6, never released): the counters as the VM's step sums (grain vm_step, 0130) minus
--   its samples outside the window from a time-ordered scalar copy, min and max from each source's 16 most
--   extreme samples. Exact, but slower: CPU per call 243 vs 153 ms for the last step, 389 vs 356 ms over all
--   steps (alternating, 8 calls each): the scan it saves costs ~40-110 ms, the three subqueries replacing it
--   as much in analysis and planning (QueryAnalysis ~100 ms vs ~45 ms) and ~10-20 ms per small FINAL read.
--   No FINAL on io_samples_hist_sums (session 7): an AggregatingMergeTree FINAL that reads hist merges every
--   range its key shares with another part -- Maps included -- and its cost follows the table's parts, not
--   the run: the vm_step read took 7 ms plain and 238 ms with FINAL once a few small parts of other runs had
--   landed (nine parts; ~20 ms when merged). Rows of one key are summed here instead, as FINAL would: packed
--   arrays concatenated (counts add), samples summed and bitmaps merged (groupBitmapMerge). CPU per call,
--   alternating with the previous form, 20 calls each: 616 -> 388 ms over all steps, 241 -> 175 ms for the
--   last step (that state of the parts; it had been ~330 and ~200 ms with them merged). Window bounds compare
--   as Int64 milliseconds (transform over DateTime64 arrays costs more per row) and a subtracted count is
--   packed as 2^46 - count, so unpacking is one subtraction. Measured without a gain beyond the noise (same
--   session): hist_by_ts deduplicated by LIMIT 1 BY instead of FINAL; sums and outside grouped together instead
--   of joined; a constant guard to skip the raw branch's read; enable_join_runtime_filters = 0,
--   use_index_for_in_with_subqueries = 0, optimize_aggregation_in_order = 1, max_threads = 1. On a run_id with
--   no rows the query still costs ~100 ms CPU (QueryAnalysis ~48 ms, plan build ~11, optimization ~26): ~5-14
--   ms per table read even when it reads nothing, eight reads. The vms scan of io_samples FINAL is ~85-100 ms.
--   Tried without a gain (session 8): io_samples read as stored for VMs outside raw_vms (none of their samples
--   twice, nothing for FINAL to collapse) and with FINAL by primary key for the rest. Same rows; CPU per call,
--   alternating, 12 calls each: 417 vs 434 ms over all steps, 202 vs 183 for the last step: the second read's
--   IN subquery cost in analysis what FINAL's merge saved (io_samples in 7 parts).
--   join_use_nulls = 1: a VM whose samples carry no buckets gets empty bucket arrays (N = 0), not a NULL.
WITH
    (
        -- The run's ended steps and their measured windows (STEP_ENDED start..end; a missing start leaves the
        -- window empty, as a NULL bound does), once, as arrays looked up by step_index.
        SELECT (groupArray(step_index), groupArray(ifNull(measured_start, measured_end)), groupArray(measured_end))
        FROM (
            SELECT
                step_index,
                anyIf(start_ts, event_type = 'step_ended')                  AS measured_start,
                assumeNotNull(anyIf(end_ts, event_type = 'step_ended'))     AS measured_end
            FROM ioscale.run_events FINAL
            WHERE run_id = {run_id:String} AND event_type = 'step_ended'
            GROUP BY step_index
            HAVING anyIf(end_ts, event_type = 'step_ended') IS NOT NULL
        )
    ) AS windows,
    windows.1 AS ended_steps,
    windows.2 AS window_starts,
    windows.3 AS window_ends,
    -- The same bounds as Int64 ms: a step without STEP_ENDED gets (-2^63, 2^63 - 1) from transform's default.
    arrayMap(t -> toUnixTimestamp64Milli(t), window_starts) AS window_starts_ms,
    arrayMap(t -> toUnixTimestamp64Milli(t), window_ends) AS window_ends_ms,
    (
        -- VMs whose step sum counted a sample twice (a source's samples > distinct timestamps, see 0040), as
        -- hashes of (step, host, vm): merged from io_samples FINAL instead. A source's rows summed as FINAL
        -- would (see Speed).
        SELECT groupArray(DISTINCT cityHash64(step_index, host, vm))
        FROM (
            SELECT step_index, host, vm
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND grain = 'source_step'
              AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
            GROUP BY step_index, host, vm, target, direction
            HAVING sum(samples) != groupBitmapMerge(sample_ts)
        )
    ) AS raw_vms,
    sums AS (
        -- An ended step's VM: its step sum, packed (see hists): its rows in every part concatenated, counts add ...
        SELECT step_index, host, vm,
               groupArrayArray(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), 70368744177664 + c), mapKeys(hist), mapValues(hist))) AS plus
        FROM ioscale.io_samples_hist_sums
        WHERE run_id = {run_id:String} AND grain = 'vm_step'
          AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
          AND has(ended_steps, step_index) AND NOT has(raw_vms, cityHash64(step_index, host, vm))
        GROUP BY step_index, host, vm
        UNION ALL
        -- ... or, a VM of a step not ended or in raw_vms: its samples in the window from io_samples as before
        -- (by primary key: nothing is read when there is none).
        SELECT step_index, host, vm,
               -- packed per sample: bucket arrays of unequal lengths raise an error, as they always did
               groupArrayArray(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), 70368744177664 + c),
                                        latency_bucket_index, latency_bucket_count))
        FROM ioscale.io_samples FINAL
        WHERE run_id = {run_id:String}
          AND (step_index, host, vm) IN (
              SELECT step_index, host, vm
              FROM ioscale.io_samples_hist_sums
              WHERE run_id = {run_id:String} AND grain = 'vm_step'
                AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
                AND (NOT has(ended_steps, step_index) OR has(raw_vms, cityHash64(step_index, host, vm))))
          AND latency_hist_scheme = 1
          AND toUnixTimestamp64Milli(ts) >= transform(step_index, ended_steps, window_starts_ms, toInt64(-9223372036854775808))
          AND toUnixTimestamp64Milli(ts) < transform(step_index, ended_steps, window_ends_ms, toInt64(9223372036854775807))
        GROUP BY step_index, host, vm
    ),
    outside AS (
        -- ... minus its samples outside the measured window (their times from the step_ts rows).
        SELECT step_index, host, vm,
               arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), toUInt64(70368744177664 - c)), groupArrayArray(mapKeys(hist)), groupArrayArray(mapValues(hist))) AS minus
        FROM ioscale.io_samples_hist_by_ts FINAL
        PREWHERE run_id = {run_id:String}
          AND (step_index, ts) IN (
              SELECT step_index, ts
              FROM ioscale.io_samples_hist_sums
              WHERE run_id = {run_id:String} AND grain = 'step_ts'
                AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
                AND has(ended_steps, step_index)
                AND (toUnixTimestamp64Milli(ts) < transform(step_index, ended_steps, window_starts_ms, toInt64(0))
                     OR toUnixTimestamp64Milli(ts) >= transform(step_index, ended_steps, window_ends_ms, toInt64(0))))
        WHERE NOT has(raw_vms, cityHash64(step_index, host, vm))
        GROUP BY step_index, host, vm
    ),
    hists AS (
        -- A VM's buckets with signed counts, sorted by bucket and, within a bucket, subtractions first (the
        -- sign bit: 0 = minus): the running count then crosses a rank only at a bucket whose net count
        -- crosses it. Packed: bucket << 47 | 2^46 + count for an addition, bucket << 47 | 2^46 - count for a
        -- subtraction (a step's bucket count stays far below 2^46): the low 47 bits minus 2^46 are the signed
        -- count. Its p99 by quantileExactWeighted(0.99)'s rule over (bucket representative, count): the
        -- first bucket whose running count reaches ceil(0.99 x N); representatives grow with the bucket index.
        SELECT step_index, host, vm, arraySort(arrayConcat(plus, minus)) AS packed,
               arrayMap(p -> toInt64(bitAnd(p, 140737488355327)) - 70368744177664, packed) AS counts,
               toUInt64(arraySum(counts)) AS latency_n,
               toUInt16(bitShiftRight(packed[arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(counts))], 47)) AS p99_index
        FROM sums LEFT JOIN outside USING (step_index, host, vm)
    ),
    vms AS (
        SELECT
            s.step_index                                                  AS step_index,
            s.host                                                        AS host,
            s.vm                                                          AS vm,
            count()                                                       AS samples,
            sum(s.ops)                                                    AS ops,
            sum(s.latency_count)                                          AS latency_count,
            sum(s.latency_sum_ns)                                         AS latency_sum_ns,
            minIf(s.latency_min_ns, s.latency_count > 0)                  AS latency_min_ns,
            max(s.latency_max_ns)                                         AS latency_max_ns,
            min(s.ts)                                                     AS first_ts,
            max(s.ts + toIntervalMillisecond(s.interval_ms))              AS last_end,
            has(ended_steps, s.step_index)                                AS measured,
            window_starts[indexOf(ended_steps, s.step_index)]             AS measured_start,
            window_ends[indexOf(ended_steps, s.step_index)]               AS measured_end
        FROM ioscale.io_samples AS s FINAL
        WHERE s.run_id = {run_id:String}
          AND ({step_index:Int32} < 0 OR s.step_index = {step_index:Int32})
          AND toUnixTimestamp64Milli(s.ts) >= transform(s.step_index, ended_steps, window_starts_ms, toInt64(-9223372036854775808))
          AND toUnixTimestamp64Milli(s.ts) < transform(s.step_index, ended_steps, window_ends_ms, toInt64(9223372036854775807))
        GROUP BY s.step_index, s.host, s.vm
    ),
    per_vm AS (
        SELECT
            v.step_index AS step_index, v.host AS host, v.vm AS vm, v.samples AS samples, latency_n,
            -- The step's window: declared when ended, else the span every VM of the step covered.
            if(v.measured,
               toUnixTimestamp64Milli(v.measured_end) - toUnixTimestamp64Milli(v.measured_start),
               max(toUnixTimestamp64Milli(v.last_end)) OVER (PARTITION BY v.step_index)
                 - min(toUnixTimestamp64Milli(v.first_ts)) OVER (PARTITION BY v.step_index)) / 1000 AS window_s,
            v.ops / window_s AS iops,
            if(v.latency_count > 0, v.latency_sum_ns / v.latency_count, NULL) AS mean_ns,
            toUInt64(ifNull(h.latency_n, 0)) AS latency_n,
            ifNull(h.p99_index, 0) AS p99_index,
            if(latency_n < 1000, v.latency_max_ns, least(greatest(
                (bitShiftLeft(toUInt64(modulo(p99_index, 128) + 128 * least(intDiv(p99_index, 128), 1)), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)), 2)),
                v.latency_min_ns), v.latency_max_ns)) AS p99_ns
        FROM vms AS v
        LEFT JOIN hists AS h ON h.step_index = v.step_index AND h.host = v.host AND h.vm = v.vm
    ),
    compared AS (
        SELECT
            step_index, host, vm, samples, latency_n, iops, mean_ns, p99_ns,
            quantileExact(0.5)(iops) OVER (PARTITION BY step_index)    AS median_iops,
            quantileExact(0.5)(mean_ns) OVER (PARTITION BY step_index) AS median_mean_ns,
            quantileExact(0.5)(p99_ns) OVER (PARTITION BY step_index)  AS median_p99_ns,
            (iops / median_iops - 1) * 100                             AS iops_pct,
            (mean_ns / median_mean_ns - 1) * 100                       AS mean_pct,
            (p99_ns / median_p99_ns - 1) * 100                         AS p99_pct,
            {metric:String} IN ('any', 'iops') AND iops_pct <= -{threshold_pct:Float64}        AS lag_iops,
            {metric:String} IN ('any', 'mean_latency') AND mean_pct >= {threshold_pct:Float64} AS lag_mean,
            {metric:String} IN ('any', 'p99') AND p99_pct >= {threshold_pct:Float64}           AS lag_p99
        FROM per_vm
    )
SELECT
    step_index, host, vm, samples,
    round(iops, 1)                          AS iops,
    round(median_iops, 1)                   AS median_iops,
    round(iops_pct, 1)                      AS iops_vs_median_pct,
    round(mean_ns / 1e3, 3)                 AS mean_latency_us,
    round(median_mean_ns / 1e3, 3)          AS median_mean_latency_us,
    round(mean_pct, 1)                      AS mean_latency_vs_median_pct,
    round(p99_ns / 1e3, 3)                  AS p99_us,
    round(median_p99_ns / 1e3, 3)           AS median_p99_us,
    round(p99_pct, 1)                       AS p99_vs_median_pct,
    latency_n,
    toBool(lag_iops OR lag_mean OR lag_p99) AS lagging,
    arrayStringConcat(arrayFilter(x -> x != '', [
        if(lag_iops, format('iops {}%', toString(round(iops_pct, 1))), ''),
        if(lag_mean, format('mean latency +{}%', toString(round(mean_pct, 1))), ''),
        if(lag_p99, format('p99 +{}%', toString(round(p99_pct, 1))), '')]), '; ') AS reason
FROM compared
WHERE lagging OR {show_all:Bool}
ORDER BY step_index, lagging DESC, iops_vs_median_pct, p99_vs_median_pct DESC, host, vm
SETTINGS join_use_nulls = 1
