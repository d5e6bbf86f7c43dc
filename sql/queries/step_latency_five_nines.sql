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
--   p50_us              median latency, microseconds; this and every percentile below: NULL when latency_n = 0
--   p90_us              90th percentile, microseconds
--   p99_us              99th percentile, microseconds
--   p99_9_us            99.9th percentile, microseconds
--   p99_99_us           99.99th percentile, microseconds
--   p99_999_us          99.999th percentile, microseconds (the exact max when too_few_samples)
--   max_us              exact largest latency, microseconds
--   required_n          samples p99.999 needs: ceil(10 / (1 - 0.99999)) = 10^6
--   too_few_samples     latency_n < required_n: p99_999_us is the max, not a percentile
--   valid_through       the deepest level whose N requirement is met ('p99.99', ...; '' if none): every
--                       deeper column holds the exact max instead (NULL when latency_n = 0)
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
--   No histogram at all (latency_n = 0: Iometer, DISKSPD without its latency table): every percentile is
--   NULL -- there is none, and neither 0 nor the max may pass for one (step_reported_percentiles shows what
--   the tool itself reported).
--   FINAL: the Kafka engine delivers at least once; FINAL collapses a replayed sample into one row.
--   Speed: merging every sample's buckets at each call is too slow for a whole run. The step's histogram
--   summed over all its samples is kept in io_samples_hist_sums (grain fleet_step); the measured window is
--   that sum minus the histograms of the samples outside the window (ramp-up, after the end), found by time
--   in io_samples_hist_by_ts. Counts add and subtract exactly. The counters, min and max of an ended step
--   over both directions come from the step_ts rows of io_samples_hist_sums inside the window (one row per
--   sample time, summed like the histograms): the window's samples exactly, min and max included. Per
--   direction, for steps not ended, and for steps whose step_ts rows do not cover their samples exactly
--   (counted_samples != samples), they come from io_samples FINAL. A step and direction is merged from
--   io_samples FINAL when some source received a sample twice (the sums would count it twice) or the step
--   has no STEP_ENDED yet (its samples are still arriving). Figures: bench/RESULTS.md.
--   Buckets left at 0 by the subtraction are dropped (no encoder sends an empty bucket).
--   join_use_nulls = 1: a step whose samples carry no buckets gets an empty histogram (N = 0), not a NULL.
WITH
    (
        -- The run's steps from its events, once, as arrays looked up by step_index: the label, and each ended
        -- step's measured window (STEP_ENDED start..end; a missing start leaves the window empty, as a NULL
        -- bound does). Lookups on sort-key columns can filter before FINAL, and constants use the primary key.
        SELECT (groupArray(step_index), groupArray(step_label), groupArrayIf(step_index, measured_end IS NOT NULL),
                groupArrayIf(ifNull(measured_start, assumeNotNull(measured_end)), measured_end IS NOT NULL),
                groupArrayIf(assumeNotNull(measured_end), measured_end IS NOT NULL))
        FROM (
            SELECT
                step_index,
                argMaxIf(step_label, ts, step_label != '')   AS step_label,
                anyIf(start_ts, event_type = 'step_ended')   AS measured_start,
                anyIf(end_ts, event_type = 'step_ended')     AS measured_end
            FROM ioscale.run_events FINAL
            WHERE run_id = {run_id:String} AND event_type IN ('step_started', 'step_ended')
            GROUP BY step_index
        )
    ) AS run_steps,
    run_steps.3 AS ended_steps,
    run_steps.4 AS window_starts,
    run_steps.5 AS window_ends,
    (
        -- (step, direction) merged from io_samples: some source's sum counted a sample twice (samples > distinct
        -- timestamps, see 0040), or the step has not ended (its samples are still arriving).
        SELECT groupArray(DISTINCT (step_index, direction))
        FROM ioscale.io_samples_hist_sums FINAL
        WHERE run_id = {run_id:String} AND grain = 'source_step'
          AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
          AND ({direction:String} = 'all' OR direction = {direction:String})
          AND (samples != bitmapCardinality(sample_ts) OR NOT has(ended_steps, step_index))
    ) AS raw_pairs,
    (
        -- Steps whose counters, min and max come from the step_ts rows inside their window (one per sample
        -- time, the window's samples exactly: see 0040): ended, no raw pair, every sample time's counters
        -- covering its samples (counted_samples), all directions asked for. The others are merged from
        -- io_samples FINAL as before.
        SELECT groupArrayIf(step_index, summed)
        FROM (
            SELECT step_index,
                   {direction:String} = 'all' AND has(ended_steps, step_index)
                     AND NOT has(arrayMap(p -> p.1, raw_pairs), step_index)
                     AND min(counted_samples = samples)                         AS summed
            FROM ioscale.io_samples_hist_sums FINAL
            WHERE run_id = {run_id:String} AND grain = 'step_ts'
              AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
            GROUP BY step_index
        )
    ) AS summed_steps,
    hist_parts AS (
        -- The step's sum ...
        SELECT step_index, toInt8(1) AS sign, hist
        FROM ioscale.io_samples_hist_sums
        WHERE run_id = {run_id:String} AND grain = 'fleet_step'
          AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
          AND ({direction:String} = 'all' OR direction = {direction:String})
          AND NOT has(raw_pairs, (step_index, direction))
        UNION ALL
        -- ... minus the samples outside the measured window (their times from the step_ts rows) ...
        SELECT step_index, toInt8(-1) AS sign, hist
        FROM ioscale.io_samples_hist_by_ts FINAL
        PREWHERE run_id = {run_id:String}
          AND (step_index, ts) IN (
              SELECT step_index, ts
              FROM ioscale.io_samples_hist_sums
              WHERE run_id = {run_id:String} AND grain = 'step_ts'
                AND ({step_index:Int32} < 0 OR step_index = {step_index:Int32})
                AND has(ended_steps, step_index)
                AND (ts < transform(step_index, ended_steps, window_starts, ts) OR ts >= transform(step_index, ended_steps, window_ends, ts)))
          AND ({direction:String} = 'all' OR direction = {direction:String})
        WHERE NOT has(raw_pairs, (step_index, direction))
        UNION ALL
        -- ... or, for raw_pairs, the samples in the window merged from io_samples as before.
        SELECT step_index, toInt8(1) AS sign,
               if(latency_hist_scheme = 1, mapFromArrays(latency_bucket_index, latency_bucket_count), map()) AS hist
        FROM ioscale.io_samples FINAL
        PREWHERE run_id = {run_id:String} AND has(arrayMap(p -> p.1, raw_pairs), step_index)
        WHERE has(raw_pairs, (step_index, direction))
          AND (NOT has(ended_steps, step_index)
               OR (ts >= transform(step_index, ended_steps, window_starts, ts) AND ts < transform(step_index, ended_steps, window_ends, ts)))
    ),
    hists AS (
        SELECT step_index,
               mapFilter((k, c) -> c > 0, mapSubtract(sumMapIf(hist, sign > 0), sumMapIf(hist, sign < 0))) AS hist
        FROM hist_parts
        GROUP BY step_index
    ),
    merged AS (
        -- summed_steps: the step_ts rows inside the window ...
        SELECT
            step_index,
            transform(step_index, run_steps.1, run_steps.2, NULL)        AS label,
            true                                                          AS measured,
            sum(latency_count)                                            AS latency_count,
            sum(latency_sum_ns)                                           AS latency_sum_ns,
            -- 18446744073709551615: no sample counted I/Os, where minIf over no row gives 0
            if(min(latency_min_ns) = 18446744073709551615, 0, min(latency_min_ns)) AS latency_min_ns,
            max(latency_max_ns)                                           AS latency_max_ns
        FROM ioscale.io_samples_hist_sums
        WHERE run_id = {run_id:String} AND grain = 'step_ts' AND has(summed_steps, step_index)
          AND ts >= transform(step_index, ended_steps, window_starts, ts)
          AND ts < transform(step_index, ended_steps, window_ends, ts)
        GROUP BY step_index
        UNION ALL
        -- ... the other steps: their samples from io_samples FINAL, as before.
        SELECT
            s.step_index                                                  AS step_index,
            transform(s.step_index, run_steps.1, run_steps.2, NULL)      AS label,
            has(ended_steps, s.step_index)                                AS measured,
            sum(s.latency_count)                                          AS latency_count,
            sum(s.latency_sum_ns)                                         AS latency_sum_ns,
            minIf(s.latency_min_ns, s.latency_count > 0)                  AS latency_min_ns,
            max(s.latency_max_ns)                                         AS latency_max_ns
        FROM ioscale.io_samples AS s FINAL
        WHERE s.run_id = {run_id:String}
          AND ({step_index:Int32} < 0 OR s.step_index = {step_index:Int32})
          AND s.step_index NOT IN (SELECT arrayJoin(summed_steps))
          AND ({direction:String} = 'all' OR s.direction = {direction:String})
          AND (NOT has(ended_steps, s.step_index)
               OR (s.ts >= transform(s.step_index, ended_steps, window_starts, s.ts)
                   AND s.ts < transform(s.step_index, ended_steps, window_ends, s.ts)))
        GROUP BY s.step_index
    ),
    quantiles AS (
        SELECT
            m.step_index AS step_index, m.label AS label, m.measured AS measured, m.latency_count AS latency_count,
            m.latency_sum_ns AS latency_sum_ns, m.latency_min_ns AS latency_min_ns, m.latency_max_ns AS latency_max_ns,
            h.hist AS hist,
            arraySum(mapValues(hist)) AS n,
            [0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999] AS levels,
            -- histogram.required_n(q): ceil(10 / (1 - q)), shaved by 1e-9 so p90 needs 100, not 101.
            arrayMap(q -> ioscaleRequiredN(q), levels) AS required,
            arrayReduce('quantilesExactWeighted(0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)',
                arrayMap(i -> ioscaleBucketValueNs(i), mapKeys(hist)),
                mapValues(hist)) AS raw,
            -- Clamp to the exact [min, max]; below the required N the exact max stands in; N = 0: NULL.
            arrayMap((q, v) -> ioscaleQuantileNs(q, v, n, latency_min_ns, latency_max_ns), levels, raw) AS value_ns
        FROM merged AS m
        LEFT JOIN hists AS h ON h.step_index = m.step_index
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
