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
--   p99_us                 the VM's own p99 from its merged histogram, microseconds (its max below N = 1000;
--                          NULL when latency_n = 0: no histogram, so no p99 to compare)
--   median_p99_us          the median VM's p99, microseconds
--   p99_vs_median_pct      (p99 / median - 1) x 100
--   latency_n              I/Os in the VM's merged histogram
--   lagging                true when a compared metric is beyond threshold_pct on the slow side (a metric
--                          the VM or the median lacks, NULL, never counts)
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
--   Speed: merging every VM's samples at each call is too slow for a whole run, so each ended step's VMs
--   are computed once, ~20-35 s after its last sample, into step_windows (a refreshable view, every 15 s),
--   with the samples each row stands for. A row is used only while the VM's samples (io_samples_hist_sums,
--   grain vm_step) and the step's window still match it, so a row can be late, never wrong. Every other VM
--   -- a step not ended or ended just now, a sample arrived since, a sample with malformed buckets -- is
--   merged from io_samples FINAL here, found by primary key (nothing is read when there is none), as the
--   view merges it. Figures: bench/RESULTS.md.
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
        -- VM-steps whose row in step_windows still holds: computed over the step's current window from
        -- every sample that has reached the VM's step sum since (samples added, redeliveries included), as
        -- hashes of (step, host, vm). The others are merged from io_samples below.
        SELECT groupArray(cityHash64(step_index, host, vm))
        FROM (
            SELECT step_index, host, vm, sum(samples) AS samples
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND grain = 'vm_step'
              AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
            GROUP BY step_index, host, vm
        ) AS c
        INNER JOIN (
            SELECT step_index, host, vm, source_samples, malformed_samples, window_start, window_end
            FROM ioscale.step_windows FINAL
            WHERE run_id = {run_id:String} AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
              AND grain = 'vm'
        ) AS w USING (step_index, host, vm)
        WHERE w.source_samples = c.samples AND w.malformed_samples = 0 AND has(ended_steps, step_index)
          AND w.window_start = window_starts[indexOf(ended_steps, step_index)]
          AND w.window_end = window_ends[indexOf(ended_steps, step_index)]
    ) AS summarized,
    per_vm AS (
        -- A summarized VM-step: its figures as computed (no samples in the window: no row, as below); its p99
        -- NULL without a histogram, as ioscaleQuantileNs gives below (the view stores the max there) ...
        SELECT step_index, host, vm, samples, latency_n,
               (toUnixTimestamp64Milli(window_end) - toUnixTimestamp64Milli(window_start)) / 1000 AS window_s,
               ops / window_s AS iops,
               if(latency_count > 0, latency_sum_ns / latency_count, NULL) AS mean_ns,
               if(latency_n = 0, NULL, p99_ns) AS p99_ns
        FROM ioscale.step_windows FINAL
        WHERE run_id = {run_id:String} AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
          AND grain = 'vm' AND has(summarized, cityHash64(step_index, host, vm)) AND samples > 0
        UNION ALL
        -- ... or any other (a step not ended or ended just now, a sample since): its samples in the window
        -- merged from io_samples FINAL (found by primary key: nothing is read when there is none).
        SELECT step_index, host, vm, samples, latency_n,
               -- The step's window: declared when ended, else the span every VM of the step covered.
               if(measured,
                  toUnixTimestamp64Milli(measured_end) - toUnixTimestamp64Milli(measured_start),
                  max(toUnixTimestamp64Milli(last_end)) OVER (PARTITION BY step_index)
                    - min(toUnixTimestamp64Milli(first_ts)) OVER (PARTITION BY step_index)) / 1000 AS window_s,
               window_ops / window_s AS iops,
               if(window_latency_count > 0, window_latency_sum_ns / window_latency_count, NULL) AS mean_ns,
               ioscaleQuantileNs(0.99, ioscaleBucketValueNs(p99_index), latency_n, window_min_ns, window_max_ns) AS p99_ns
        FROM (
            SELECT
                step_index, host, vm,
                -- (aliases unlike the columns: one named like a column would shadow it in the others)
                count()                                                   AS samples,
                sum(ops)                                                  AS window_ops,
                sum(latency_count)                                        AS window_latency_count,
                sum(latency_sum_ns)                                       AS window_latency_sum_ns,
                minIf(latency_min_ns, latency_count > 0)                  AS window_min_ns,
                max(latency_max_ns)                                       AS window_max_ns,
                min(ts)                                                   AS first_ts,
                max(ts + toIntervalMillisecond(interval_ms))              AS last_end,
                has(ended_steps, step_index)                              AS measured,
                window_starts[indexOf(ended_steps, step_index)]           AS measured_start,
                window_ends[indexOf(ended_steps, step_index)]             AS measured_end,
                -- Buckets with their counts packed into one UInt64 (bucket << 47 | count; a step's bucket count
                -- stays far below 2^47) so that one plain arraySort orders them by bucket. Bucket arrays of
                -- unequal lengths raise an error, as they always did.
                arraySort(groupArrayArrayIf(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), c),
                                                     latency_bucket_index, latency_bucket_count),
                                            latency_hist_scheme = 1)) AS packed,
                arrayMap(p -> bitAnd(p, 140737488355327), packed)     AS counts,
                arraySum(counts)                                          AS latency_n,
                toUInt16(bitShiftRight(packed[arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(counts))], 47)) AS p99_index
            FROM ioscale.io_samples FINAL
            WHERE run_id = {run_id:String}
              AND (step_index, host, vm) IN (
                  SELECT step_index, host, vm
                  FROM ioscale.io_samples_hist_sums
                  WHERE run_id = {run_id:String} AND grain = 'vm_step'
                    AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
                    AND NOT has(summarized, cityHash64(step_index, host, vm)))
              AND toUnixTimestamp64Milli(ts) >= transform(step_index, ended_steps, window_starts_ms, toInt64(-9223372036854775808))
              AND toUnixTimestamp64Milli(ts) < transform(step_index, ended_steps, window_ends_ms, toInt64(9223372036854775807))
            GROUP BY step_index, host, vm
        )
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
    toBool(ifNull(lag_iops OR lag_mean OR lag_p99, false)) AS lagging,
    arrayStringConcat(arrayFilter(x -> x != '', [
        if(lag_iops, format('iops {}%', toString(round(iops_pct, 1))), ''),
        if(lag_mean, format('mean latency +{}%', toString(round(mean_pct, 1))), ''),
        if(lag_p99, format('p99 +{}%', toString(round(p99_pct, 1))), '')]), '; ') AS reason
FROM compared
WHERE lagging OR {show_all:Bool}
ORDER BY step_index, lagging DESC, iops_vs_median_pct, p99_vs_median_pct DESC, host, vm
