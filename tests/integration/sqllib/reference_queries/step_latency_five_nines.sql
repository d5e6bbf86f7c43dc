-- Five-nines latency per step, recomputed exactly from the raw sample histograms, with N and its validity.
--
-- The headline tail-latency figure of a load step (DISKSPD's and VMFleet's "QoS" latency) done right: every
-- sample histogram of the step is merged, and the percentiles are read from the merged histogram -- the
-- histogram of every I/O of the step, across all VMs -- never averaged from per-VM figures. The step is
-- measured over the window of its STEP_ENDED event (ramp-up excluded); a step that has not ended yet, or a run
-- without run events, is taken whole (`window` says which).
--
-- Parameters:
--   run_id        String                        the run (see `ioscale sql run_list`)
--   step_index    Int32 = -1                    step, 0-based; -1 = every step
--   direction     String = all {all|read|write} reads, writes or both
--
-- Columns:
--   step_index          step, 0-based
--   step_label          the step's label ('' without run events)
--   window              'measured' (STEP_ENDED start..end) or 'whole step' (not ended / no run events)
--   latency_n           I/Os in the merged histogram: the N every percentile below stands on
--   latency_count       I/Os with a latency reported (exceeds latency_n when some samples carry no buckets)
--   min_us              exact smallest latency, microseconds
--   mean_us             exact mean latency (sum / count), microseconds
--   p50_us              median latency, microseconds
--   p90_us              90th percentile, microseconds
--   p99_us              99th percentile, microseconds
--   p99_9_us            99.9th percentile, microseconds
--   p99_99_us           99.99th percentile, microseconds
--   p99_999_us          99.999th percentile, microseconds (the exact max when too_few_samples)
--   max_us              exact largest latency, microseconds
--   required_n          samples p99.999 needs: ceil(10 / (1 - 0.99999)) = 10^6
--   too_few_samples     latency_n < required_n: p99_999_us is the max, not a percentile
--   valid_through       the deepest level whose N requirement is met ('p99.99', ...; '' if none): every
--                       deeper column holds the exact max instead
--
-- Notes:
--   Exact over buckets: sumMap adds the sparse bucket counts (exact), quantilesExactWeighted runs over
--   (bucket representative, count) with the rank rule of ioscale.histogram (first bucket whose running count
--   reaches ceil(q x N)), and the answer is clamped to the exact [min, max]. Each value is within 1/256
--   (0.39 %) of the exact percentile of the raw latencies. quantileTDigest / quantile (sampling) are never used:
--   at p99.999 they are off by far more than the bucket error.
--   Too few samples: a level q needs N >= ceil(10 / (1 - q)) (p99: 1000, p99.999: 10^6), the rule of
--   histogram.required_n; below it the column shows the exact max -- with N < 10^6, "p99.999" IS the max.
--   Samples with no histogram (percentile-only imports, e.g. DISKSPD) count in latency_count, not latency_n.
--   FINAL: the Kafka engine delivers at least once; FINAL collapses a replayed sample into one row.
--   sumMap over mapFromArrays(index, count), not sumMap(index, count): same sums, but the Map form ran ~4x
--   faster on ClickHouse 26.9 here (one 320-VM step: 60 ms vs 230 ms).
--   join_use_nulls = 1: a step without STEP_ENDED gets NULL window bounds (read as: the whole step),
--   not a 1970 window that would match nothing.
WITH
    steps AS (
        SELECT
            step_index,
            argMaxIf(step_label, ts, step_label != '')   AS step_label,
            anyIf(start_ts, event_type = 'step_ended')   AS measured_start,
            anyIf(end_ts, event_type = 'step_ended')     AS measured_end
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND event_type IN ('step_started', 'step_ended')
        GROUP BY step_index
    ),
    merged AS (
        SELECT
            s.step_index                                                  AS step_index,
            any(w.step_label)                                             AS label,
            any(w.measured_end) IS NOT NULL                               AS measured,
            sum(s.latency_count)                                          AS latency_count,
            sum(s.latency_sum_ns)                                         AS latency_sum_ns,
            minIf(s.latency_min_ns, s.latency_count > 0)                  AS latency_min_ns,
            max(s.latency_max_ns)                                         AS latency_max_ns,
            sumMapIf(mapFromArrays(s.latency_bucket_index, s.latency_bucket_count), s.latency_hist_scheme = 1) AS hist
        FROM ioscale.io_samples AS s FINAL
        LEFT JOIN steps AS w ON w.step_index = s.step_index
        WHERE s.run_id = {run_id:String}
          AND ({step_index:Int32} < 0 OR s.step_index = {step_index:Int32})
          AND ({direction:String} = 'all' OR s.direction = {direction:String})
          AND (w.measured_end IS NULL OR (s.ts >= w.measured_start AND s.ts < w.measured_end))
        GROUP BY s.step_index
    ),
    quantiles AS (
        SELECT
            step_index, label, measured, latency_count, latency_sum_ns, latency_min_ns, latency_max_ns,
            arraySum(mapValues(hist)) AS n,
            [0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999] AS levels,
            -- histogram.required_n(q): ceil(10 / (1 - q)), shaved by 1e-9 so p90 needs 100, not 101.
            arrayMap(q -> toUInt64(ceil(10 / (1 - q) * (1 - 1e-9))), levels) AS required,
            arrayReduce('quantilesExactWeighted(0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)',
                arrayMap(i -> (bitShiftLeft(toUInt64(modulo(i, 128) + 128 * least(intDiv(i, 128), 1)), toUInt8(greatest(intDiv(i, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(i, 128), 1) - 1)), 2)), mapKeys(hist)),
                mapValues(hist)) AS raw,
            -- Clamp to the exact [min, max]; below the required N the exact max stands in; N = 0: NULL.
            arrayMap((v, need) -> multiIf(n = 0, NULL, n < need, latency_max_ns, least(greatest(v, latency_min_ns), latency_max_ns)),
                     raw, required) AS value_ns
        FROM merged
    )
SELECT
    step_index,
    ifNull(label, '')                                               AS step_label,
    if(measured, 'measured', 'whole step')                          AS window,
    n                                                               AS latency_n,
    latency_count,
    round(latency_min_ns / 1e3, 3)                                  AS min_us,
    round(if(latency_count > 0, latency_sum_ns / latency_count, NULL) / 1e3, 3) AS mean_us,
    round(value_ns[1] / 1e3, 3)                                     AS p50_us,
    round(value_ns[2] / 1e3, 3)                                     AS p90_us,
    round(value_ns[3] / 1e3, 3)                                     AS p99_us,
    round(value_ns[4] / 1e3, 3)                                     AS p99_9_us,
    round(value_ns[5] / 1e3, 3)                                     AS p99_99_us,
    round(value_ns[6] / 1e3, 3)                                     AS p99_999_us,
    round(latency_max_ns / 1e3, 3)                                  AS max_us,
    required[6]                                                     AS required_n,
    toBool(n < required[6])                                         AS too_few_samples,
    ['', 'p50', 'p90', 'p99', 'p99.9', 'p99.99', 'p99.999'][1 + arrayCount(need -> n >= need, required)] AS valid_through
FROM quantiles
ORDER BY step_index
SETTINGS join_use_nulls = 1
