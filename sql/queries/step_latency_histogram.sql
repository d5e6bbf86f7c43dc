-- The merged latency histogram of a step: every non-empty bucket with its count and the tail beyond it.
--
-- The whole distribution behind the percentiles, to plot or to read directly: is the tail one bump (a stall
-- mode) or a long slope? How many I/Os took longer than 10 ms? Buckets of all samples of the step (all VMs,
-- targets and, unless filtered, directions) are added, exactly as the percentile queries merge them.
--
-- Parameters:
--   run_id        String                        the run (see `ioscale sql run_list`)
--   step_index    Int32                         step, 0-based
--   direction     String = all {all|read|write} reads, writes or both
--
-- Columns:
--   bucket_index      bucket of ioscale histogram scheme 1 (log-linear, 7 sub-bucket bits, ns)
--   lower_us          the bucket's smallest value, microseconds (inclusive)
--   upper_us          the bucket's end, microseconds (exclusive)
--   representative_us the value the percentile queries report for it (the midpoint), microseconds
--   count             I/Os in the bucket
--   cumulative_pct    I/Os in this bucket or faster, % of all
--   slower            I/Os slower than this bucket (in later buckets)
--
-- Notes:
--   Bucket bounds follow ioscale.histogram: e = max(index // 128, 1) - 1, lower = (index - 128 e) << e,
--   width = 2^e; every value in a bucket is within 1/256 of its representative.
--   Window: the step's measured window (STEP_ENDED start..end), or the whole step when it has not ended.
--   FINAL: the Kafka engine delivers at least once; FINAL collapses replayed samples.
--   Speed: the step's histogram summed over all its samples is kept in io_samples_hist_sums (grain
--   fleet_step); the measured window is that sum minus the histograms of the samples outside it (ramp-up,
--   after the end), found by time in io_samples_hist_by_ts. Counts add and subtract exactly. A direction is
--   merged from io_samples FINAL instead when some source received a sample twice (the sum would count it
--   twice) or the step has no STEP_ENDED yet. Buckets left at 0 by the subtraction are dropped (no encoder
--   sends an empty bucket).
WITH
    (
        -- The step's measured window (STEP_ENDED start..end; a missing start leaves it empty, as a NULL bound
        -- does), or nothing when the step has not ended.
        SELECT (groupArray(ifNull(measured_start, measured_end)), groupArray(measured_end))
        FROM (
            SELECT anyIf(start_ts, event_type = 'step_ended')                AS measured_start,
                   assumeNotNull(anyIf(end_ts, event_type = 'step_ended'))   AS measured_end
            FROM ioscale.run_events FINAL
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND event_type = 'step_ended'
            HAVING anyIf(end_ts, event_type = 'step_ended') IS NOT NULL
        )
    ) AS window,
    notEmpty(window.1) AS ended,
    window.1[1] AS measured_start,
    window.2[1] AS measured_end,
    (
        -- Directions merged from io_samples: some source's sum counted a sample twice (samples > distinct
        -- timestamps, see 0040), or the step has not ended (its samples are still arriving).
        SELECT groupArray(DISTINCT direction)
        FROM ioscale.io_samples_hist_sums FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
          AND ({direction:String} = 'all' OR direction = {direction:String})
          AND (samples != bitmapCardinality(sample_ts) OR NOT ended)
    ) AS raw_directions,
    merged AS (
        SELECT mapFilter((k, c) -> c > 0, mapSubtract(sumMapIf(hist, sign > 0), sumMapIf(hist, sign < 0))) AS hist
        FROM (
            -- The step's sum ...
            SELECT toInt8(1) AS sign, hist
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'fleet_step'
              AND ({direction:String} = 'all' OR direction = {direction:String})
              AND NOT has(raw_directions, direction)
            UNION ALL
            -- ... minus the samples outside the measured window (their times from the step_ts rows) ...
            SELECT toInt8(-1) AS sign, hist
            FROM ioscale.io_samples_hist_by_ts FINAL
            PREWHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND ended
              AND ts IN (
                  SELECT ts
                  FROM ioscale.io_samples_hist_sums
                  WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'step_ts'
                    AND (ts < measured_start OR ts >= measured_end))
              AND ({direction:String} = 'all' OR direction = {direction:String})
            WHERE NOT has(raw_directions, direction)
            UNION ALL
            -- ... or, for raw_directions, the samples in the window merged from io_samples as before.
            SELECT toInt8(1) AS sign,
                   if(latency_hist_scheme = 1, mapFromArrays(latency_bucket_index, latency_bucket_count), map()) AS hist
            FROM ioscale.io_samples FINAL
            PREWHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND notEmpty(raw_directions)
            WHERE has(raw_directions, direction)
              AND (NOT ended OR (ts >= measured_start AND ts < measured_end))
        )
    )
SELECT
    bucket_index,
    round(lower_ns / 1e3, 3)                                              AS lower_us,
    round((lower_ns + width_ns) / 1e3, 3)                                 AS upper_us,
    round(ioscaleBucketValueNs(bucket_index) / 1e3, 3)                    AS representative_us,
    count,
    round(running / total * 100, 5)                                       AS cumulative_pct,
    total - running                                                       AS slower
FROM (
    SELECT
        bucket.1                                                          AS bucket_index,
        bucket.2                                                          AS count,
        ioscaleBucketLowerNs(bucket_index)                                AS lower_ns,
        ioscaleBucketWidthNs(bucket_index)                                AS width_ns,
        sum(count) OVER (ORDER BY bucket_index ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
        sum(count) OVER ()                                                AS total
    FROM merged
    ARRAY JOIN arrayZip(mapKeys(hist), mapValues(hist)) AS bucket
)
ORDER BY bucket_index
