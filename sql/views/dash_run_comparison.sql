-- Every analysed run against every possible baseline run, step by step (steps matched by step_index, as
-- sql/queries/compare_runs.sql): each figure of run_id with its difference against baseline_run_id's same
-- step, (run / baseline - 1) x 100, CPU in percentage points. Meant to be read with run_id and
-- baseline_run_id both filtered (the Superset dataset run_comparison does); ClickHouse pushes each filter into
-- its side of the joins. A step the baseline lacks keeps its figures with NULL differences; p99 / p99.999
-- differences are NULL when either side has too few I/Os for the percentile (a max is not a percentile).
CREATE OR REPLACE VIEW ioscale.dash_run_comparison AS
WITH
    sc AS (
        SELECT run_id, scenario, step_index, step_label, load, iops, mb_per_s, latency_mean_ns, p99_ns, p99_too_few,
               p99_999_ns, p99_999_too_few, cpu_utilization_pct, interrupts_per_s, saturation_status,
               saturation_bottleneck, step_start
        FROM ioscale.scaling_curves FINAL
    ),
    labels AS (
        SELECT run_id,
               arrayStringConcat(arrayMap(kv -> concat(kv.1, '=', kv.2),
                   arraySort(arrayZip(mapKeys(argMaxIf(config_labels, ts, has_load)),
                                      mapValues(argMaxIf(config_labels, ts, has_load))))), ', ') AS config
        FROM ioscale.run_events FINAL
        GROUP BY run_id
    )
SELECT
    r.run_id                                                             AS run_id,
    bl.baseline_run_id                                                   AS baseline_run_id,
    l.config                                                             AS config,
    if(l.config = '', toString(r.run_id), concat(l.config, ' | ', r.run_id)) AS run_label,
    r.run_id = bl.baseline_run_id                                        AS is_baseline,
    r.scenario                                                           AS scenario,
    r.step_index                                                         AS step_index,
    r.step_label                                                         AS step_label,
    r.step_start                                                         AS step_start,
    r.load                                                               AS load,
    r.iops                                                               AS iops,
    if(b.run_id = '', NULL, (r.iops / b.iops - 1) * 100)                                         AS iops_diff_pct,
    r.mb_per_s                                                           AS mb_per_s,
    if(b.run_id = '', NULL, (r.mb_per_s / b.mb_per_s - 1) * 100)                                 AS mb_per_s_diff_pct,
    r.latency_mean_ns / 1e3                                              AS mean_latency_us,
    if(b.run_id = '', NULL, (r.latency_mean_ns / b.latency_mean_ns - 1) * 100)                   AS mean_latency_diff_pct,
    if(r.p99_too_few, NULL, r.p99_ns / 1e3)                              AS p99_latency_us,
    if(b.run_id = '' OR r.p99_too_few OR b.p99_too_few, NULL, (r.p99_ns / b.p99_ns - 1) * 100) AS p99_diff_pct,
    if(r.p99_999_too_few, NULL, r.p99_999_ns / 1e3)                      AS p99_999_latency_us,
    if(b.run_id = '' OR r.p99_999_too_few OR b.p99_999_too_few, NULL, (r.p99_999_ns / b.p99_999_ns - 1) * 100) AS p99_999_diff_pct,
    r.cpu_utilization_pct                                                AS cpu_pct,
    if(b.run_id = '', NULL, r.cpu_utilization_pct - b.cpu_utilization_pct)                       AS cpu_diff_pts,
    r.interrupts_per_s                                                   AS interrupts_per_s,
    if(b.run_id = '', NULL, (r.interrupts_per_s / b.interrupts_per_s - 1) * 100)                 AS interrupts_diff_pct,
    r.saturation_status                                                  AS saturation_status,
    r.saturation_bottleneck                                              AS saturation_bottleneck
FROM sc AS r
CROSS JOIN (SELECT DISTINCT run_id AS baseline_run_id FROM ioscale.scaling_curves) AS bl
LEFT JOIN sc AS b ON b.run_id = bl.baseline_run_id AND b.step_index = r.step_index
LEFT JOIN labels AS l ON l.run_id = r.run_id
