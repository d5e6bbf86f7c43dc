-- The latest Universal Scalability Law fit of every run (Superset dataset usl_curve) as points to draw:
-- the measured steps (point_kind 'measured'), the model X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))
-- on 60 points from N = 1 to 1.25 x the larger of the largest N measured and the predicted peak ('USL model'),
-- and the predicted peak ('USL predicted peak'). N is the Flink job's load axis (scaling_curves.load); load_x is N
-- on the scaling charts' x (dash_scaling_points.load_x, the parameter the run sweeps, named by load_x_axis): N x the
-- run's load_x / N, which is one number when the run sweeps one parameter (else load_x = N, load_x_axis 'N: ...').
-- A run without a successful fit has only its measured points (model columns NULL).
CREATE OR REPLACE VIEW ioscale.dash_usl_curve AS
WITH
    fit AS (
        SELECT run_id,
               argMax((metric, load_axis, lambda, sigma, kappa, r_squared, peak_n, peak_x, max_n, peak_extrapolated,
                       through_step), through_step) AS f
        FROM ioscale.usl_fits FINAL
        WHERE fitted
        GROUP BY run_id
    ),
    model AS (
        SELECT run_id, f.1 AS metric, f.2 AS load_axis, f.3 AS lambda, f.4 AS sigma, f.5 AS kappa,
               f.6 AS r_squared, f.7 AS peak_n, f.8 AS peak_x, f.9 AS max_n, f.10 AS peak_extrapolated,
               f.11 AS through_step, 1.25 * greatest(ifNull(max_n, 1), ifNull(peak_n, 0)) AS n_hi
        FROM fit
    ),
    axis AS (
        -- x per unit of N, when the run's steps agree on it
        SELECT run_id, any(load_x_axis) AS x_axis, min(load_x / load) AS lo, max(load_x / load) AS hi,
               if(hi - lo <= 1e-9 * hi, hi, NULL) AS x_per_n
        FROM ioscale.dash_scaling_points
        WHERE load > 0
        GROUP BY run_id
    ),
    points AS (
        SELECT sc.run_id AS run_id, 'measured' AS point_kind, toNullable(sc.step_index) AS step_index,
               sc.step_label AS step_label, toNullable(sc.load) AS n,
               toNullable(if(m.metric = 'mb_per_s', sc.mb_per_s, sc.iops)) AS throughput,
               nullIf(m.metric, '') AS metric, nullIf(m.load_axis, '') AS load_axis,
               if(m.run_id = '', NULL, m.lambda) AS lambda, if(m.run_id = '', NULL, m.sigma) AS sigma,
               if(m.run_id = '', NULL, m.kappa) AS kappa, if(m.run_id = '', NULL, m.r_squared) AS r_squared,
               if(m.run_id = '', NULL, m.peak_n) AS peak_n, if(m.run_id = '', NULL, m.peak_x) AS peak_x,
               if(m.run_id = '', NULL, m.peak_extrapolated) AS peak_extrapolated,
               if(m.run_id = '', NULL, m.through_step) AS through_step
        FROM ioscale.scaling_curves AS sc FINAL
        LEFT JOIN model AS m ON m.run_id = sc.run_id
        UNION ALL
        SELECT run_id, 'USL model', NULL, '', toNullable(1 + i * (n_hi - 1) / 59) AS n,
               toNullable(lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))),
               metric, load_axis, lambda, sigma, kappa, r_squared, peak_n, peak_x, peak_extrapolated, through_step
        FROM model ARRAY JOIN range(60) AS i
        UNION ALL
        SELECT run_id, 'USL predicted peak', NULL, '', peak_n, peak_x,
               metric, load_axis, lambda, sigma, kappa, r_squared, peak_n, peak_x, peak_extrapolated, through_step
        FROM model WHERE peak_n IS NOT NULL
    )
SELECT points.*,
       points.n * ifNull(axis.x_per_n, 1)                                        AS load_x,
       if(axis.x_per_n IS NULL, concat('N: ', ifNull(points.load_axis, '')), axis.x_axis) AS load_x_axis
FROM points
LEFT JOIN axis ON axis.run_id = points.run_id
