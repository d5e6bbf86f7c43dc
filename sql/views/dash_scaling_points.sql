-- Scaling curve points (Superset dataset scaling_points): one row per (run, step) of the Flink job's step
-- results (scaling_curves, FINAL) with
--   load_x             the x of the curve: the one load parameter the run sweeps (VMs, disks per VM, workers,
--                      queue depth or block size in KiB; load_x_axis names it), else total outstanding I/Os
--   linear_*           linear scaling from the first step: first step's value x load_x / its load_x
--   gain_pct           IOPS against the previous step, % (load_increase_pct: load_x against the previous step)
--   usl_iops           the run's latest USL fit (usl_fits) at the step's N (the job's load axis)
--   is_saturation_point  the run's first SATURATED step; saturation_label ('saturation: PORT' | 'saturation: CPU' |
--                      'saturation: DEVICE_KNEE') names its bottleneck in chart legends (a fixed set: one colour each)
-- Window functions are partitioned by run_id, so ClickHouse pushes a WHERE run_id = ... into the scan.
-- Unmatched LEFT JOIN rows take defaults (no join_use_nulls in a view): a run without a fit has metric '',
-- hence usl_iops NULL.
CREATE OR REPLACE VIEW ioscale.dash_scaling_points AS
WITH
    sc AS (
        SELECT *, toFloat64(greatest(vm_count, 1) * targets_per_vm * workers_per_target * outstanding_ios_per_target) AS total_outstanding
        FROM ioscale.scaling_curves FINAL
    ),
    swept AS (
        -- which load parameter the run varies: 1 VMs, 2 disks per VM, 3 workers, 4 queue depth, 5 block size,
        -- 0 none or several (x = total outstanding I/Os)
        SELECT run_id,
               [uniqExact(vm_count) > 1, uniqExact(targets_per_vm) > 1, uniqExact(workers_per_target) > 1,
                uniqExact(outstanding_ios_per_target) > 1, uniqExact(block_size_bytes) > 1] AS varies,
               if(arraySum(varies) = 1, toUInt8(arrayFirstIndex(v -> v, varies)), toUInt8(0)) AS axis
        FROM sc GROUP BY run_id
    ),
    fit AS (
        SELECT run_id, argMax((metric, lambda, sigma, kappa), through_step) AS f
        FROM ioscale.usl_fits FINAL
        WHERE fitted
        GROUP BY run_id
    ),
    pts AS (
        SELECT sc.run_id AS run_id, sc.* EXCEPT (run_id),
               ['total outstanding I/Os', 'VMs', 'disks per VM', 'workers per disk', 'queue depth',
                'block size (KiB)'][swept.axis + 1] AS load_x_axis,
               multiIf(swept.axis = 1, toFloat64(vm_count), swept.axis = 2, toFloat64(targets_per_vm),
                       swept.axis = 3, toFloat64(workers_per_target), swept.axis = 4, toFloat64(outstanding_ios_per_target),
                       swept.axis = 5, block_size_bytes / 1024, total_outstanding) AS x,
               fit.f.1 AS usl_metric,
               fit.f.2 * load / (1 + fit.f.3 * (load - 1) + fit.f.4 * load * (load - 1)) AS usl_x
        FROM sc
        LEFT JOIN swept ON swept.run_id = sc.run_id
        LEFT JOIN fit ON fit.run_id = sc.run_id
    )
SELECT
    run_id, scenario, step_index, step_label, step_start, step_end,
    x                                                                    AS load_x,
    load_x_axis,
    load, load_axis, vm_count, targets_per_vm, workers_per_target, outstanding_ios_per_target,
    block_size_bytes / 1024                                              AS block_size_kib,
    total_outstanding                                                    AS total_outstanding_ios,
    steady_seconds, steady_usable,
    iops, mb_per_s,
    latency_mean_ns / 1e3                                                AS mean_latency_us,
    p50_ns / 1e3                                                         AS p50_latency_us,
    if(p99_too_few, NULL, p99_ns / 1e3)                                  AS p99_latency_us,
    if(p99_999_too_few, NULL, p99_999_ns / 1e3)                          AS p99_999_latency_us,
    latency_max_ns / 1e3                                                 AS max_latency_us,
    latency_n,
    cpu_utilization_pct                                                  AS cpu_pct,
    cpu_max_utilization_pct                                              AS cpu_max_pct,
    cpu_hottest_host,
    interrupts_per_s,
    port_max_utilization_pct                                             AS port_max_pct,
    port_hottest,
    first_value(iops) OVER w * x / nullIf(first_value(x) OVER w, 0)      AS linear_iops,
    first_value(mb_per_s) OVER w * x / nullIf(first_value(x) OVER w, 0)  AS linear_mb_per_s,
    iops / linear_iops * 100                                             AS efficiency_pct,
    (iops / nullIf(lagInFrame(toNullable(iops)) OVER w, 0) - 1) * 100    AS gain_pct,
    (x / nullIf(lagInFrame(toNullable(x)) OVER w, 0) - 1) * 100          AS load_increase_pct,
    if(usl_metric = 'iops', usl_x, NULL)                                 AS usl_iops,
    if(usl_metric = 'mb_per_s', usl_x, NULL)                             AS usl_mb_per_s,
    littles_consistent,
    saturation_status,
    saturation_bottleneck,
    saturation_evidence,
    toBool(saturation_status = 'SATURATED'
           AND step_index = minIf(step_index, saturation_status = 'SATURATED') OVER (PARTITION BY run_id)) AS is_saturation_point,
    concat('saturation: ', saturation_bottleneck)                        AS saturation_label
FROM pts
WINDOW w AS (PARTITION BY run_id ORDER BY step_index ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
