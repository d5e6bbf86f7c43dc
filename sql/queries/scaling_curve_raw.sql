-- Scaling curve of a run computed from the raw tables: one row per ended step, over its measured window.
--
-- The same figures as `scaling_curve`, without the Flink job: use it when Flink is down, lagging or was not
-- running when the data arrived, and to cross-check the job. Each step is measured over the window its
-- STEP_ENDED event declares (start_ts = end of ramp-up, end_ts = end of the step), as Iometer and DISKSPD
-- report their results; `scaling_curve` uses the steady state the job detected inside that window, so the two
-- can differ by a few percent on a noisy step. Steps without STEP_ENDED (still running) are not shown.
--
-- Parameters:
--   run_id        String                     the run (see `ioscale sql run_list`)
--   load_axis     String = total-outstanding {total-outstanding|vm-count|workers|queue-depth|step}
--                                            the x of the curve, as the Flink job's --load-axis: linear
--                                            scaling means throughput proportional to it
--   metric        String = iops {iops|mb_per_s}  the throughput that gain and efficiency are computed on
--
-- Columns:
--   step_index                  step, 0-based
--   step_label                  the step's label (e.g. '40 VMs/node (160 VMs)')
--   vm_count                    VMs generating I/O (0 = the host itself)
--   targets_per_vm              disks/volumes per VM
--   workers_per_target          workers (threads) per target
--   outstanding_ios_per_target  queue depth per worker and target
--   block_size_bytes            I/O size, bytes
--   read_pct                    share of reads, %
--   load                        the x value along load_axis
--   measured_s                  length of the measured window, seconds
--   iops                        I/Os completed per second, reads + writes, all sources
--   mb_per_s                    payload throughput, 10^6 bytes per second
--   mean_latency_us             exact mean latency (sum / count), microseconds
--   p99_us                      99th percentile latency, microseconds (exact over buckets, within 0.39 %);
--                               NULL when latency_n = 0 (no histogram)
--   p99_999_us                  99.999th percentile latency, microseconds; the exact max when too_few, NULL
--                               when latency_n = 0
--   max_latency_us              exact largest latency, microseconds
--   latency_n                   I/Os in the merged histogram (N behind the percentiles)
--   p99_999_too_few             true when latency_n < 10^6: p99_999_us is then the max, not a percentile
--   outstanding_ios             measured mean I/Os in flight (sum over sources)
--   littles_ios                 iops x mean latency: equals outstanding_ios in a closed loop (Little's law)
--   cpu_pct                     mean over hosts of host CPU utilization, % (NULL: no CPU samples)
--   cpu_max_pct                 the busiest host's CPU utilization, %
--   gain_pct                    metric vs the previous step, % (NULL on the first step)
--   efficiency_pct              metric vs linear scaling from the first step along load_axis, %
--
-- Notes:
--   Percentiles: the step's sample histograms are merged with sumMap (adding bucket counts is exact), then
--   quantilesExactWeighted runs over (bucket representative, count) -- the same rank rule as
--   ioscale.histogram -- and the answer is clamped to the exact [min, max]. Never quantileTDigest, and never an
--   average of per-VM percentiles (VMFleet's habit, -34 % at p99 on skewed fleets). A level needs
--   N >= ceil(10 / (1 - q)) samples (p99: 1000, p99.999: 10^6); below that the column holds the exact max.
--   A step without any histogram (N = 0: Iometer, DISKSPD without its latency table) has no percentile: NULL.
--   FINAL: the raw tables are ReplacingMergeTrees fed at least once by the Kafka engine; without FINAL a
--   replayed sample would count twice until a background merge.
--   Speed: merging every sample's buckets at each call is too slow for a whole run. Each step's histogram
--   summed over all its samples is kept in io_samples_hist_sums (grain fleet_step); the measured window is
--   that sum minus the histograms of the samples outside it (ramp-up, after the end), found by time in
--   io_samples_hist_by_ts. Counts add and subtract exactly. A step is merged from io_samples FINAL instead
--   when some source received a sample twice (the sum would count it twice).
--   The counters, min and max come from the step_ts rows of io_samples_hist_sums inside the window (one row
--   per sample time, summed like the histograms): the window's samples exactly, min and max included,
--   without a scan of io_samples FINAL over the whole run. A step in raw_steps, or whose step_ts rows do not
--   cover their samples exactly (counted_samples != samples), takes them from io_samples FINAL.
--   outstanding_ios is summed (Float64) per sample time first: it may differ from a sum over the samples in
--   the last bits, far below its 2 decimals. Figures: bench/RESULTS.md.
--   CPU: per host the first scope present of hypervisor, host, root_partition (cpu = -1 totals),
--   interval-weighted, as the Flink job's StepAnalyzer does.
--   join_use_nulls = 1: a step without CPU samples shows cpu_pct NULL, not 0 %.
WITH
    steps AS (
        -- The ended steps (sql/views/steps.sql).
        SELECT
            step_index, step_label, vm_count, targets_per_vm, workers_per_target, outstanding_ios_per_target,
            block_size_bytes, read_pct,
            step_has_load,
            assumeNotNull(s.measured_start)                               AS measured_start,
            assumeNotNull(s.measured_end)                                 AS measured_end
        FROM ioscale.steps AS s
        WHERE run_id = {run_id:String} AND s.measured_end IS NOT NULL
    ),
    (
        -- The ended steps' windows as arrays looked up by step_index (as steps: a missing start reads as 1970).
        SELECT (groupArray(step_index), groupArray(measured_start), groupArray(measured_end)) FROM steps
    ) AS windows,
    windows.1 AS ended_steps,
    windows.2 AS window_starts,
    windows.3 AS window_ends,
    (
        -- Steps merged from io_samples: some source's sum counted a sample twice (samples > distinct timestamps,
        -- see 0040).
        SELECT groupArray(DISTINCT step_index)
        FROM ioscale.io_samples_hist_sums FINAL
        WHERE run_id = {run_id:String} AND grain = 'source_step' AND has(ended_steps, step_index)
          AND samples != bitmapCardinality(sample_ts)
    ) AS raw_steps,
    (
        -- Steps whose counters, min and max come from their step_ts rows (see sums): not in raw_steps, and
        -- every sample time's counters cover its samples exactly (counted_samples, see 0040).
        SELECT groupArray(step_index)
        FROM (
            SELECT step_index
            FROM ioscale.io_samples_hist_sums FINAL
            WHERE run_id = {run_id:String} AND grain = 'step_ts'
              AND has(ended_steps, step_index) AND NOT has(raw_steps, step_index)
            GROUP BY step_index
            HAVING min(counted_samples = samples)
        )
    ) AS counter_steps,
    hists AS (
        SELECT step_index,
               mapFilter((k, c) -> c > 0, mapSubtract(sumMapIf(hist, sign > 0), sumMapIf(hist, sign < 0))) AS hist
        FROM (
            -- The step's sum ...
            SELECT step_index, toInt8(1) AS sign, hist
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND grain = 'fleet_step'
              AND has(ended_steps, step_index) AND NOT has(raw_steps, step_index)
            UNION ALL
            -- ... minus the samples outside the measured window (their times from the step_ts rows) ...
            SELECT step_index, toInt8(-1) AS sign, hist
            FROM ioscale.io_samples_hist_by_ts FINAL
            PREWHERE run_id = {run_id:String}
              AND (step_index, ts) IN (
                  SELECT step_index, ts
                  FROM ioscale.io_samples_hist_sums
                  WHERE run_id = {run_id:String} AND grain = 'step_ts'
                    AND has(ended_steps, step_index) AND NOT has(raw_steps, step_index)
                    AND (ts < transform(step_index, ended_steps, window_starts, ts) OR ts >= transform(step_index, ended_steps, window_ends, ts)))
            UNION ALL
            -- ... or, for raw_steps, the samples in the window merged from io_samples as before.
            SELECT step_index, toInt8(1) AS sign,
                   if(latency_hist_scheme = 1, mapFromArrays(latency_bucket_index, latency_bucket_count), map()) AS hist
            FROM ioscale.io_samples FINAL
            PREWHERE run_id = {run_id:String} AND has(raw_steps, step_index)
            WHERE ts >= transform(step_index, ended_steps, window_starts, ts) AND ts < transform(step_index, ended_steps, window_ends, ts)
        )
        GROUP BY step_index
    ),
    sums AS (
        -- The step's counters and extremes over the step_ts rows inside its window (one per sample time, see
        -- 0040: the window's samples exactly, min and max included) ...
        SELECT
            step_index,
            sum(ops)                                                      AS ops,
            sum(bytes)                                                    AS bytes,
            sum(latency_count)                                            AS latency_count,
            sum(latency_sum_ns)                                           AS latency_sum_ns,
            -- 18446744073709551615: no sample counted I/Os; minIf over no row gives 0
            if(min(latency_min_ns) = 18446744073709551615, 0, min(latency_min_ns)) AS latency_min_ns,
            max(latency_max_ns)                                           AS latency_max_ns,
            sum(outstanding_io_ms)                                        AS outstanding_io_ms
        FROM ioscale.io_samples_hist_sums
        WHERE run_id = {run_id:String} AND grain = 'step_ts' AND has(counter_steps, step_index)
          AND ts >= transform(step_index, ended_steps, window_starts, ts)
          AND ts < transform(step_index, ended_steps, window_ends, ts)
        GROUP BY step_index
        UNION ALL
        -- ... or, for the other ended steps, its samples in the window from io_samples as before.
        SELECT
            s.step_index                                                  AS step_index,
            sum(s.ops)                                                    AS ops,
            sum(s.bytes)                                                  AS bytes,
            sum(s.latency_count)                                          AS latency_count,
            sum(s.latency_sum_ns)                                         AS latency_sum_ns,
            minIf(s.latency_min_ns, s.latency_count > 0)                  AS latency_min_ns,
            max(s.latency_max_ns)                                         AS latency_max_ns,
            sum(s.outstanding_ios * s.interval_ms)                        AS outstanding_io_ms
        FROM ioscale.io_samples AS s FINAL
        PREWHERE s.run_id = {run_id:String} AND has(ended_steps, s.step_index) AND NOT has(counter_steps, s.step_index)
        WHERE s.ts >= transform(s.step_index, ended_steps, window_starts, s.ts)
          AND s.ts < transform(s.step_index, ended_steps, window_ends, s.ts)
        GROUP BY s.step_index
    ),
    io AS (
        SELECT
            m.step_index AS step_index, m.ops AS ops, m.bytes AS bytes, m.latency_count AS latency_count,
            m.latency_sum_ns AS latency_sum_ns, m.latency_min_ns AS latency_min_ns, m.latency_max_ns AS latency_max_ns,
            m.outstanding_io_ms AS outstanding_io_ms,
            h.hist AS hist,
            arraySum(mapValues(hist))                                     AS latency_n,
            -- quantilesExactWeighted over (bucket representative, count) of the merged buckets.
            arrayReduce('quantilesExactWeighted(0.99, 0.99999)',
                arrayMap(i -> ioscaleBucketValueNs(i), mapKeys(hist)),
                mapValues(hist))                                          AS q
        FROM sums AS m
        LEFT JOIN hists AS h ON h.step_index = m.step_index
    ),
    cpu_scope AS (
        SELECT
            c.step_index AS step_index, c.host AS host, c.scope AS scope,
            sum(c.utilization_pct * greatest(c.interval_ms, 1)) / sum(greatest(c.interval_ms, 1)) AS utilization_pct
        FROM ioscale.cpu_samples AS c FINAL
        WHERE c.run_id = {run_id:String} AND c.cpu = -1 AND c.scope IN ('hypervisor', 'host', 'root_partition')
          AND has(ended_steps, c.step_index)
          AND c.ts >= transform(c.step_index, ended_steps, window_starts, c.ts)
          AND c.ts < transform(c.step_index, ended_steps, window_ends, c.ts)
        GROUP BY c.step_index, c.host, c.scope
    ),
    cpu AS (
        SELECT step_index, avg(host_pct) AS cpu_pct, max(host_pct) AS cpu_max_pct
        FROM (
            SELECT step_index, host,
                   argMin(utilization_pct, indexOf(['hypervisor', 'host', 'root_partition'], scope)) AS host_pct
            FROM cpu_scope
            GROUP BY step_index, host
        )
        GROUP BY step_index
    ),
    points AS (
        SELECT
            w.step_index AS step_index, w.step_label AS step_label, w.vm_count AS vm_count,
            w.targets_per_vm AS targets_per_vm, w.workers_per_target AS workers_per_target,
            w.outstanding_ios_per_target AS outstanding_ios_per_target, w.block_size_bytes AS block_size_bytes,
            w.read_pct AS read_pct,
            -- The Flink job's LoadAxis: a step without a load falls back to its ordinal.
            toFloat64(multiIf(
                NOT w.step_has_load OR {load_axis:String} = 'step', w.step_index + 1,
                {load_axis:String} = 'vm-count', greatest(w.vm_count, 1),
                {load_axis:String} = 'workers', greatest(w.workers_per_target, 1),
                {load_axis:String} = 'queue-depth', greatest(w.outstanding_ios_per_target, 1),
                greatest(w.vm_count, 1) * w.targets_per_vm * w.workers_per_target * w.outstanding_ios_per_target)) AS load,
            (toUnixTimestamp64Milli(w.measured_end) - toUnixTimestamp64Milli(w.measured_start)) / 1000 AS measured_s,
            l.ops / measured_s AS iops,
            l.bytes / 1e6 / measured_s AS mb_per_s,
            if(l.latency_count > 0, l.latency_sum_ns / l.latency_count, NULL) AS mean_latency_ns,
            -- Too few samples: the exact max stands in for the percentile (histogram.required_n); none: NULL.
            ioscaleQuantileNs(0.99, l.q[1], l.latency_n, l.latency_min_ns, l.latency_max_ns) AS p99_ns,
            ioscaleQuantileNs(0.99999, l.q[2], l.latency_n, l.latency_min_ns, l.latency_max_ns) AS p99_999_ns,
            l.latency_max_ns AS max_latency_ns,
            l.latency_n AS latency_n,
            toBool(l.latency_n < ioscaleRequiredN(0.99999)) AS p99_999_too_few,
            l.outstanding_io_ms / 1000 / measured_s AS outstanding_ios,
            c.cpu_pct AS cpu_pct, c.cpu_max_pct AS cpu_max_pct,
            if({metric:String} = 'mb_per_s', mb_per_s, iops) AS x
        FROM steps AS w
        INNER JOIN io AS l ON l.step_index = w.step_index
        LEFT JOIN cpu AS c ON c.step_index = w.step_index
    )
SELECT
    step_index, step_label, vm_count, targets_per_vm, workers_per_target, outstanding_ios_per_target,
    block_size_bytes, round(read_pct, 1) AS read_pct, load, measured_s,
    round(iops, 1) AS iops,
    round(mb_per_s, 2) AS mb_per_s,
    round(mean_latency_ns / 1e3, 3) AS mean_latency_us,
    round(p99_ns / 1e3, 3) AS p99_us,
    round(p99_999_ns / 1e3, 3) AS p99_999_us,
    round(max_latency_ns / 1e3, 3) AS max_latency_us,
    latency_n, p99_999_too_few,
    round(outstanding_ios, 2) AS outstanding_ios,
    round(iops * mean_latency_ns / 1e9, 2) AS littles_ios,
    round(cpu_pct, 2) AS cpu_pct, round(cpu_max_pct, 2) AS cpu_max_pct,
    round((x / lagInFrame(toNullable(x)) OVER (ORDER BY step_index ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1) * 100, 2) AS gain_pct,
    round(x / (first_value(x) OVER (ORDER BY step_index) * load / first_value(load) OVER (ORDER BY step_index)) * 100, 2) AS efficiency_pct
FROM points
ORDER BY step_index
SETTINGS join_use_nulls = 1
