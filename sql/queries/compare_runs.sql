-- Two runs side by side, step by step: throughput, latency and CPU of each, and the difference in %.
--
-- Did the new driver, firmware, adapter or setting help? Run the same sweep twice and compare: steps are
-- matched by step_index (the same sweep gives the same steps), and every figure is shown for run A, run B and
-- as B vs A in %. Reads the Flink job's step rows (scaling_curves); a step missing from one run shows NULLs.
--
-- Parameters:
--   run_a         String        the baseline run
--   run_b         String        the run compared with it
--
-- Columns:
--   step_index              step, 0-based
--   step_label_a            run A's label of the step
--   step_label_b            run B's label (differs when the sweeps do)
--   load_a                  run A's load (x of its curve)
--   load_b                  run B's load
--   iops_a                  run A's IOPS
--   iops_b                  run B's IOPS
--   iops_diff_pct           (B / A - 1) x 100
--   mb_per_s_a              run A's throughput, 10^6 bytes/s
--   mb_per_s_b              run B's throughput, 10^6 bytes/s
--   mb_per_s_diff_pct       (B / A - 1) x 100
--   mean_latency_us_a       run A's mean latency, microseconds
--   mean_latency_us_b       run B's mean latency, microseconds
--   mean_latency_diff_pct   (B / A - 1) x 100: negative = B is faster
--   p99_us_a                run A's p99, microseconds (NULL when the step has no histogram, latency_n = 0)
--   p99_us_b                run B's p99, microseconds
--   p99_diff_pct            (B / A - 1) x 100
--   p99_999_us_a            run A's p99.999 (its max when too few samples), microseconds
--   p99_999_us_b            run B's p99.999, microseconds
--   p99_999_diff_pct        (B / A - 1) x 100; NULL when either side has too few samples (a max is no percentile)
--   cpu_pct_a               run A's mean host CPU, %
--   cpu_pct_b               run B's mean host CPU, %
--   cpu_diff_pts            B - A, percentage points
--   saturation_a            run A's verdict for the step
--   saturation_b            run B's verdict
--
-- Notes:
--   FINAL: step rows are re-emitted as late data arrives; FINAL keeps the latest version per (run, step).
--   p99.999 below N = 10^6 is the max of the step: comparing two maxima says little, so no % is given.
--   join_use_nulls = 1: a step only one run has shows NULL for the other run, not 0 IOPS.
--   A step without a histogram (Iometer, DISKSPD without its latency table) has no percentile: its p99 and
--   p99.999 are NULL, and so is every % computed from them.
WITH
    a AS (SELECT * FROM ioscale.scaling_curves FINAL WHERE run_id = {run_a:String}),
    b AS (SELECT * FROM ioscale.scaling_curves FINAL WHERE run_id = {run_b:String})
SELECT
    ifNull(a.step_index, b.step_index)                                   AS step_index,
    a.step_label                                                         AS step_label_a,
    b.step_label                                                         AS step_label_b,
    a.load                                                               AS load_a,
    b.load                                                               AS load_b,
    round(a.iops, 1)                                                     AS iops_a,
    round(b.iops, 1)                                                     AS iops_b,
    round((b.iops / a.iops - 1) * 100, 2)                                AS iops_diff_pct,
    round(a.mb_per_s, 2)                                                 AS mb_per_s_a,
    round(b.mb_per_s, 2)                                                 AS mb_per_s_b,
    round((b.mb_per_s / a.mb_per_s - 1) * 100, 2)                        AS mb_per_s_diff_pct,
    round(a.latency_mean_ns / 1e3, 3)                                    AS mean_latency_us_a,
    round(b.latency_mean_ns / 1e3, 3)                                    AS mean_latency_us_b,
    round((b.latency_mean_ns / a.latency_mean_ns - 1) * 100, 2)          AS mean_latency_diff_pct,
    round(a.p99_ns / 1e3, 3)                                             AS p99_us_a,
    round(b.p99_ns / 1e3, 3)                                             AS p99_us_b,
    round((b.p99_ns / a.p99_ns - 1) * 100, 2)                            AS p99_diff_pct,
    round(a.p99_999_ns / 1e3, 3)                                         AS p99_999_us_a,
    round(b.p99_999_ns / 1e3, 3)                                         AS p99_999_us_b,
    if(a.p99_999_too_few OR b.p99_999_too_few, NULL,
       round((b.p99_999_ns / a.p99_999_ns - 1) * 100, 2))                AS p99_999_diff_pct,
    round(a.cpu_utilization_pct, 2)                                      AS cpu_pct_a,
    round(b.cpu_utilization_pct, 2)                                      AS cpu_pct_b,
    round(b.cpu_utilization_pct - a.cpu_utilization_pct, 2)              AS cpu_diff_pts,
    a.saturation_status                                                  AS saturation_a,
    b.saturation_status                                                  AS saturation_b
FROM a
FULL OUTER JOIN b ON a.step_index = b.step_index
ORDER BY step_index
SETTINGS join_use_nulls = 1
