-- One row per run the Flink job analysed (Superset dataset run_limits), from dash_scaling_points: the load
-- parameter the run sweeps, the first SATURATED step with its bottleneck and evidence, the best step, the
-- busiest CPU and port over the run, and the latest USL fit's predicted peak. A few rows per run however long the history: the Saturation dashboard's "which resource
-- limits each run" and the result dashboards' Run filters read it. baseline_run_id repeats run_id for the Run
-- comparison dashboard's second (single-choice) filter.
CREATE OR REPLACE VIEW ioscale.dash_run_limits AS
WITH
    fits AS (
        SELECT run_id,
               argMax((metric, lambda, sigma, kappa, r_squared, peak_n, peak_x, peak_extrapolated), through_step) AS f
        FROM ioscale.usl_fits FINAL
        WHERE fitted
        GROUP BY run_id
    ),
    runs AS (
        SELECT
            run_id,
            any(scenario)                                                 AS scenario,
            any(load_x_axis)                                              AS swept,
            min(step_start)                                               AS started,
            max(step_end)                                                 AS last_step_end,
            count()                                                       AS steps,
            countIf(saturation_status = 'SATURATED') > 0                  AS saturated,
            countIf(saturation_status = 'SCALING') > 0                    AS scaled,
            minIf(step_index, saturation_status = 'SATURATED')            AS first_saturated_step,
            argMinIf(step_label, step_index, saturation_status = 'SATURATED') AS saturated_at,
            argMinIf(saturation_bottleneck, step_index, saturation_status = 'SATURATED') AS bottleneck,
            argMinIf(saturation_evidence, step_index, saturation_status = 'SATURATED') AS evidence,
            argMinIf(iops, step_index, saturation_status = 'SATURATED')   AS iops_at_saturation,
            max(iops)                                                     AS peak_iops,
            max(mb_per_s)                                                 AS peak_mb_per_s,
            argMax(step_label, iops)                                      AS peak_iops_step,
            max(cpu_max_pct)                                              AS max_cpu_pct,
            max(port_max_pct)                                             AS max_port_pct
        FROM ioscale.dash_scaling_points
        GROUP BY run_id
    )
SELECT
    runs.run_id AS run_id, runs.run_id AS baseline_run_id, scenario, swept, started, last_step_end, steps, saturated,
    if(saturated, toNullable(first_saturated_step), NULL)                 AS saturated_step,
    if(saturated, saturated_at, '')                                       AS saturated_at,
    multiIf(saturated, toString(bottleneck), scaled, 'not saturated', 'undetermined') AS limited_by,
    if(saturated, evidence, '')                                           AS evidence,
    if(saturated, toNullable(iops_at_saturation), NULL)                   AS iops_at_saturation,
    peak_iops, peak_mb_per_s, peak_iops_step, max_cpu_pct, max_port_pct,
    nullIf(fits.f.1, '')                                                  AS usl_metric,
    if(fits.run_id = '', NULL, fits.f.5)                                  AS usl_r_squared,
    if(fits.run_id = '', NULL, fits.f.6)                                  AS usl_peak_n,
    if(fits.run_id = '', NULL, fits.f.7)                                  AS usl_peak_throughput,
    if(fits.run_id = '', NULL, fits.f.8)                                  AS usl_peak_extrapolated,
    if(fits.run_id = '', NULL, fits.f.3)                                  AS usl_sigma,
    if(fits.run_id = '', NULL, fits.f.4)                                  AS usl_kappa
FROM runs
LEFT JOIN fits ON fits.run_id = runs.run_id
