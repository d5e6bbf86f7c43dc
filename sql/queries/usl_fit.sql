-- The Universal Scalability Law fit of a run, as it evolved step by step: contention, coherency, peak.
--
-- USL: X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)). sigma (contention) says how much of the work
-- serializes, kappa (coherency) how much the parties' crosstalk costs; with kappa > 0 throughput peaks at
-- N* = sqrt((1 - sigma) / kappa) and then falls. The Flink job refits after every step, so the history shows
-- how early the peak could be predicted.
--
-- Parameters:
--   run_id        String          the run (see `ioscale sql run_list`)
--   latest_only   Bool = false    only the fit over all steps so far
--
-- Columns:
--   through_step       last step included in the fit, 0-based
--   points             steps fitted
--   metric             the throughput fitted: iops | mb_per_s
--   load_axis          the N of the fit: total-outstanding | vm-count | workers | queue-depth | step
--   fitted             false when the fit was not possible (see reason)
--   reason             why not, or how the fit went
--   lambda             throughput of one unit of load (N = 1), in the metric's unit
--   sigma              contention coefficient (0 = none)
--   kappa              coherency coefficient (0 = none: no retrograde peak)
--   r_squared          goodness of fit, 0..1
--   peak_n             N at peak throughput; NULL without a finite peak (kappa = 0)
--   peak_x             the peak throughput; NULL without a finite peak
--   max_n              the largest N measured
--   peak_extrapolated  true when the peak lies beyond the measured N
--
-- Notes:
--   FINAL: fits are written at least once; FINAL keeps one row per (run, through_step).
SELECT
    through_step, points, metric, load_axis, fitted, reason,
    round(lambda, 3)          AS lambda,
    round(sigma, 6)           AS sigma,
    round(kappa, 8)           AS kappa,
    round(r_squared, 4)       AS r_squared,
    round(peak_n, 2)          AS peak_n,
    round(peak_x, 1)          AS peak_x,
    max_n,
    peak_extrapolated
FROM ioscale.usl_fits FINAL
WHERE run_id = {run_id:String}
ORDER BY through_step DESC
LIMIT if({latest_only:Bool}, 1, 1000000)
