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
--   sumMap over mapFromArrays(index, count), not sumMap(index, count): same sums, but the Map form ran ~4x
--   faster on ClickHouse 26.9 here (one 320-VM step: 60 ms vs 230 ms).
--   join_use_nulls = 1: a step without STEP_ENDED gets NULL window bounds (read as: the whole step),
--   not a 1970 window that would match nothing.
WITH
    steps AS (
        SELECT
            step_index,
            anyIf(start_ts, event_type = 'step_ended')   AS measured_start,
            anyIf(end_ts, event_type = 'step_ended')     AS measured_end
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND event_type = 'step_ended'
        GROUP BY step_index
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
            any(w.measured_end) IS NOT NULL                               AS measured,
            any(w.measured_start)                                         AS measured_start,
            any(w.measured_end)                                           AS measured_end,
            sumMapIf(mapFromArrays(s.latency_bucket_index, s.latency_bucket_count), s.latency_hist_scheme = 1) AS hist
        FROM ioscale.io_samples AS s FINAL
        LEFT JOIN steps AS w ON w.step_index = s.step_index
        WHERE s.run_id = {run_id:String}
          AND ({step_index:Int32} < 0 OR s.step_index = {step_index:Int32})
          AND (w.measured_end IS NULL OR (s.ts >= w.measured_start AND s.ts < w.measured_end))
        GROUP BY s.step_index, s.host, s.vm
    ),
    per_vm AS (
        SELECT
            step_index, host, vm, samples, latency_n,
            -- The step's window: declared when ended, else the span every VM of the step covered.
            if(measured,
               toUnixTimestamp64Milli(measured_end) - toUnixTimestamp64Milli(measured_start),
               max(toUnixTimestamp64Milli(last_end)) OVER (PARTITION BY step_index)
                 - min(toUnixTimestamp64Milli(first_ts)) OVER (PARTITION BY step_index)) / 1000 AS window_s,
            ops / window_s AS iops,
            if(latency_count > 0, latency_sum_ns / latency_count, NULL) AS mean_ns,
            arraySum(mapValues(hist)) AS latency_n,
            -- No histogram (N = 0): no p99, NULL.
            multiIf(latency_n = 0, NULL, latency_n < 1000, latency_max_ns, least(greatest(arrayReduce('quantileExactWeighted(0.99)',
                arrayMap(i -> (bitShiftLeft(toUInt64(modulo(i, 128) + 128 * least(intDiv(i, 128), 1)), toUInt8(greatest(intDiv(i, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(i, 128), 1) - 1)), 2)), mapKeys(hist)),
                mapValues(hist)), latency_min_ns), latency_max_ns)) AS p99_ns
        FROM vms
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
SETTINGS join_use_nulls = 1
