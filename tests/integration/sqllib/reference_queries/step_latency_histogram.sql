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
--   sumMap over mapFromArrays(index, count), not sumMap(index, count): same sums, but the Map form ran ~4x
--   faster on ClickHouse 26.9 here (one 320-VM step: 60 ms vs 230 ms).
WITH
    step AS (
        SELECT anyIf(start_ts, event_type = 'step_ended') AS measured_start,
               anyIf(end_ts, event_type = 'step_ended')   AS measured_end
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND event_type = 'step_ended'
    ),
    merged AS (
        SELECT sumMapIf(mapFromArrays(latency_bucket_index, latency_bucket_count), latency_hist_scheme = 1) AS hist
        FROM ioscale.io_samples FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32}
          AND ({direction:String} = 'all' OR direction = {direction:String})
          AND ((SELECT count() FROM step WHERE measured_end IS NOT NULL) = 0
               OR (ts >= (SELECT any(measured_start) FROM step) AND ts < (SELECT any(measured_end) FROM step)))
    )
SELECT
    bucket_index,
    round(lower_ns / 1e3, 3)                                              AS lower_us,
    round((lower_ns + width_ns) / 1e3, 3)                                 AS upper_us,
    round((lower_ns + intDiv(width_ns, 2)) / 1e3, 3)                      AS representative_us,
    count,
    round(running / total * 100, 5)                                       AS cumulative_pct,
    total - running                                                       AS slower
FROM (
    SELECT
        bucket.1                                                          AS bucket_index,
        bucket.2                                                          AS count,
        toUInt8(greatest(intDiv(bucket_index, 128), 1) - 1)               AS e,
        bitShiftLeft(toUInt64(bucket_index - 128 * toUInt64(e)), e)       AS lower_ns,
        bitShiftLeft(toUInt64(1), e)                                      AS width_ns,
        sum(count) OVER (ORDER BY bucket_index ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
        sum(count) OVER ()                                                AS total
    FROM merged
    ARRAY JOIN arrayZip(mapKeys(hist), mapValues(hist)) AS bucket
)
ORDER BY bucket_index
