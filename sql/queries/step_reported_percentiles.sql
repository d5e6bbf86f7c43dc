-- Fleet latency bounds per step from tools that report percentiles, not histograms (DISKSPD, VMFleet).
--
-- DISKSPD writes each source's percentile table (up to 9-nines); those cannot be merged, and averaging them
-- is wrong (the average of per-VM p99s is not the fleet's p99). What does hold: the fleet's q-quantile lies
-- between the smallest and the largest of the sources' q-quantiles (the fleet's distribution is a mixture of
-- the sources', so at the smallest source quantile no source has reached q yet, and at the largest every
-- source has). This query gives that interval per step, direction and quantile, with the source at the top.
-- Histogram-backed sources (fio, simulator, live collectors) are exact instead: see step_latency_five_nines.
--
-- Parameters:
--   run_id        String        the run (see `ioscale sql run_list`)
--
-- Columns:
--   step_index      step, 0-based
--   direction       read or write
--   quantile        the quantile the tool reported, e.g. 0.99999
--   sources         rows (source x interval) reporting it; the bound is over these
--   lower_bound_us  smallest source value: the fleet quantile is at least this, microseconds
--   upper_bound_us  largest source value: the fleet quantile is at most this, microseconds
--   spread_x        upper / lower: how far apart the sources are (1 = all alike)
--   slowest_source  host / VM / target holding the upper bound
--
-- Notes:
--   Rows without a percentile table are left out. FINAL: a sample delivered twice is counted once.
--   DISKSPD reports 0 for quantiles it has no sample for; such zeros are left out of the lower bound.
SELECT
    step_index,
    direction,
    q                                                                    AS quantile,
    count()                                                              AS sources,
    round(minIf(p_ns, p_ns > 0) / 1e3, 3)                                AS lower_bound_us,
    round(max(p_ns) / 1e3, 3)                                            AS upper_bound_us,
    round(max(p_ns) / nullIf(minIf(p_ns, p_ns > 0), 0), 2)               AS spread_x,
    argMax(concat(host, ' / ', if(vm = '', '-', vm), ' / ', target), p_ns) AS slowest_source
FROM
(
    SELECT step_index, direction, host, vm, target, qp.1 AS q, qp.2 AS p_ns
    FROM ioscale.io_samples FINAL
    ARRAY JOIN arrayZip(percentile_q, percentile_ns) AS qp
    WHERE run_id = {run_id:String} AND length(percentile_q) > 0
)
GROUP BY step_index, direction, q
ORDER BY step_index, direction, q
