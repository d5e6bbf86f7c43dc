-- Fleet balance (Superset dataset source_balance): one row per source (host, VM, target) and load step over
-- the step's measured window (STEP_ENDED start..end; the whole step while it runs), as
-- sql/queries/lagging_vms.sql: IOPS, MB/s, exact mean latency, p99 from the source's merged histogram (its
-- exact max below N = 1000), and how the source's VM compares with the step's median VM (vm_* columns;
-- lagging = IOPS 20 % or more below, or mean latency 20 % or more above, the median VM).
-- Every window function is partitioned by (run_id, step_index): ClickHouse pushes a WHERE on them into the
-- io_samples scan, so one run (and one step) is read. p99 costs ~0.2 s per 320-VM step; ClickHouse drops the
-- histogram merge when a query does not select p99_latency_us.
CREATE OR REPLACE VIEW ioscale.dash_source_balance AS
WITH
    windows AS (
        SELECT run_id, step_index,
               anyIf(start_ts, event_type = 'step_ended') AS measured_start,
               anyIf(end_ts, event_type = 'step_ended')   AS measured_end
        FROM ioscale.run_events FINAL
        WHERE event_type = 'step_ended'
        GROUP BY run_id, step_index
    ),
    sources AS (
        SELECT
            s.run_id AS run_id, s.step_index AS step_index, s.host AS host, s.vm AS vm, s.target AS target,
            sum(s.ops)                                                    AS ops,
            sum(s.bytes)                                                  AS bytes,
            sum(s.latency_count)                                          AS latency_count,
            sum(s.latency_sum_ns)                                         AS latency_sum_ns,
            minIf(s.latency_min_ns, s.latency_count > 0)                  AS latency_min_ns,
            max(s.latency_max_ns)                                         AS latency_max_ns,
            sumMapIf(mapFromArrays(s.latency_bucket_index, s.latency_bucket_count), s.latency_hist_scheme = 1) AS hist,
            -- the step's window when it has ended, else the span this source covered
            if(any(w.measured_end) IS NOT NULL,
               toUnixTimestamp64Milli(assumeNotNull(any(w.measured_end))) - toUnixTimestamp64Milli(assumeNotNull(any(w.measured_start))),
               max(toUnixTimestamp64Milli(s.ts) + s.interval_ms) - min(toUnixTimestamp64Milli(s.ts))) / 1000 AS window_s
        FROM ioscale.io_samples AS s FINAL
        LEFT JOIN windows AS w ON w.run_id = s.run_id AND w.step_index = s.step_index
        WHERE w.measured_end IS NULL OR (s.ts >= w.measured_start AND s.ts < w.measured_end)
        GROUP BY s.run_id, s.step_index, s.host, s.vm, s.target
    ),
    rated AS (
        SELECT run_id, step_index, host, vm, target,
               ops / nullIf(window_s, 0)                                               AS iops,
               bytes / 1e6 / nullIf(window_s, 0)                                       AS mb_per_s,
               if(latency_count > 0, latency_sum_ns / latency_count / 1e3, NULL)       AS mean_latency_us,
               arraySum(mapValues(hist))                                               AS latency_n,
               -- quantileExactWeighted over (bucket representative, count): ioscale.histogram's rank rule
               ioscaleQuantileNs(0.99, arrayReduce('quantileExactWeighted(0.99)',
                   arrayMap(i -> ioscaleBucketValueNs(i), mapKeys(hist)), mapValues(hist)),
                   latency_n, latency_min_ns, latency_max_ns) / 1e3                   AS p99_latency_us,
               sum(iops) OVER (PARTITION BY run_id, step_index, vm)                   AS vm_iops,
               sum(latency_sum_ns) OVER (PARTITION BY run_id, step_index, vm)
                 / nullIf(sum(latency_count) OVER (PARTITION BY run_id, step_index, vm), 0) / 1e3 AS vm_mean_latency_us
        FROM sources
    )
SELECT *,
       quantileExact(0.5)(vm_iops) OVER (PARTITION BY run_id, step_index)             AS median_vm_iops,
       (vm_iops / median_vm_iops - 1) * 100                                           AS vm_iops_vs_median_pct,
       quantileExact(0.5)(vm_mean_latency_us) OVER (PARTITION BY run_id, step_index)  AS median_vm_mean_latency_us,
       (vm_mean_latency_us / median_vm_mean_latency_us - 1) * 100                     AS vm_latency_vs_median_pct,
       toBool(ifNull(vm_iops_vs_median_pct <= -20 OR vm_latency_vs_median_pct >= 20, false)) AS lagging
FROM rated
