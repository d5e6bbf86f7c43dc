-- The worst latency outliers of a step: the intervals (or whole sources) with the highest max, p99 or mean.
--
-- Where did the tail come from? A step's p99.999 is made by a handful of I/Os; this finds them: which host, VM,
-- target and direction, and -- at grain 'interval' -- which second. A stall shows as one interval with a huge
-- max; a slow VM as a source whose every interval is high (grain 'source').
--
-- Parameters:
--   run_id        String                          the run (see `ioscale sql run_list`)
--   step_index    Int32                           step, 0-based
--   rank_by       String = max {max|p99|mean}     what to rank by
--   grain         String = interval {interval|source}  one sample interval of one source, or a source over
--                                                 the whole step window
--   limit         UInt32 = 20                     rows to return
--
-- Columns:
--   rank             1 = the worst
--   host             physical host
--   vm               VM ('' = the host itself)
--   target           disk, volume or file
--   direction        read | write
--   interval_start   start of the sample interval (grain interval); NULL at grain source
--   intervals        sample intervals covered (1 at grain interval)
--   latency_n        I/Os in the histogram the p99 stands on
--   mean_us          exact mean latency, microseconds
--   p99_us           99th percentile over the buckets, microseconds; the exact max when latency_n < 1000
--   max_us           exact largest latency, microseconds
--   iops             the source's I/Os per second over the interval(s)
--
-- Notes:
--   Window: the step's measured window (STEP_ENDED start..end), or the whole step when it has not ended.
--   p99 per interval: a 1 s interval of one source often holds < 1000 I/Os, so its "p99" is its exact max
--   (histogram.required_n); rank_by = max is the meaningful choice at grain interval.
--   The two grains are two branches of one UNION ALL; the branch not asked for is cut by a constant-false
--   WHERE, so only one is computed. FINAL: the Kafka engine delivers at least once.
--   sumMap over mapFromArrays(index, count), not sumMap(index, count): same sums, but the Map form ran ~4x
--   faster on ClickHouse 26.9 here (one 320-VM step: 60 ms vs 230 ms).
WITH
    steps AS (
        SELECT
            anyIf(start_ts, event_type = 'step_ended')   AS measured_start,
            anyIf(end_ts, event_type = 'step_ended')     AS measured_end
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND event_type = 'step_ended'
    ),
    window_samples AS (
        SELECT s.host AS host, s.vm AS vm, s.target AS target, s.direction AS direction, s.ts AS ts,
               s.interval_ms AS interval_ms, s.ops AS ops, s.latency_count AS latency_count,
               s.latency_sum_ns AS latency_sum_ns, s.latency_min_ns AS latency_min_ns,
               s.latency_max_ns AS latency_max_ns, s.latency_hist_scheme AS latency_hist_scheme,
               s.latency_bucket_index AS latency_bucket_index, s.latency_bucket_count AS latency_bucket_count
        FROM ioscale.io_samples AS s FINAL
        WHERE s.run_id = {run_id:String} AND s.step_index = {step_index:Int32}
          AND ((SELECT count() FROM steps WHERE measured_end IS NOT NULL) = 0
               OR (s.ts >= (SELECT any(measured_start) FROM steps) AND s.ts < (SELECT any(measured_end) FROM steps)))
    ),
    ranked AS (
        -- grain interval: each sample row on its own (after FINAL, one row per source and interval). Its p99
        -- with array functions, by the rank rule of ioscale.histogram and quantileExactWeighted -- the first
        -- bucket whose running count reaches ceil(0.99 x N); indexes grow with latency, so that bucket's
        -- representative is the answer (a per-row aggregate state would cost ~5x more).
        SELECT host, vm, target, direction, toNullable(ts) AS interval_start, toUInt64(1) AS intervals,
               if(latency_hist_scheme = 1, arraySum(latency_bucket_count), 0) AS latency_n,
               if(latency_count > 0, latency_sum_ns / latency_count, NULL) AS mean_ns,
               latency_min_ns AS min_ns, latency_max_ns AS max_ns,
               latency_bucket_index[arrayFirstIndex(c -> c >= greatest(1, toUInt64(ceil(0.99 * latency_n))),
                                                    arrayCumSum(latency_bucket_count))] AS p99_index,
               (bitShiftLeft(toUInt64(modulo(p99_index, 128) + 128 * least(intDiv(p99_index, 128), 1)), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)), 2)) AS p99_raw_ns,
               ops * 1000 / greatest(interval_ms, 1) AS iops
        FROM window_samples
        WHERE {grain:String} = 'interval'
        UNION ALL
        -- grain source: the source's samples merged with sumMap, quantileExactWeighted over
        -- (representative, count) of the merged buckets.
        SELECT host, vm, target, direction, interval_start, intervals, latency_n, mean_ns, min_ns, max_ns,
               toUInt16(0) AS p99_index,
               arrayReduce('quantileExactWeighted(0.99)',
                   arrayMap(i -> (bitShiftLeft(toUInt64(modulo(i, 128) + 128 * least(intDiv(i, 128), 1)), toUInt8(greatest(intDiv(i, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(i, 128), 1) - 1)), 2)), mapKeys(hist)),
                   mapValues(hist)) AS p99_raw_ns,
               iops
        FROM (
            SELECT host, vm, target, direction, NULL AS interval_start, count() AS intervals,
                   sumMapIf(mapFromArrays(latency_bucket_index, latency_bucket_count), latency_hist_scheme = 1) AS hist,
                   arraySum(mapValues(hist)) AS latency_n,
                   if(sum(latency_count) > 0, sum(latency_sum_ns) / sum(latency_count), NULL) AS mean_ns,
                   minIf(latency_min_ns, latency_count > 0) AS min_ns, max(latency_max_ns) AS max_ns,
                   sum(ops) * 1000 / greatest(sum(interval_ms), 1) AS iops
            FROM window_samples
            WHERE {grain:String} = 'source'
            GROUP BY host, vm, target, direction
        )
    ),
    scored AS (
        -- Clamped to the exact [min, max]; below N = 1000 the exact max stands in (histogram.required_n); N = 0:
        -- NULL.
        SELECT *, multiIf(latency_n = 0, NULL, latency_n < 1000, max_ns, least(greatest(p99_raw_ns, min_ns), max_ns)) AS p99_ns
        FROM ranked
    )
SELECT
    row_number() OVER (ORDER BY score DESC, host, vm, target, direction, interval_start) AS rank,
    host, vm, target, direction, interval_start, intervals, latency_n,
    round(mean_ns / 1e3, 3)                                  AS mean_us,
    round(p99_ns / 1e3, 3)                                   AS p99_us,
    round(max_ns / 1e3, 3)                                   AS max_us,
    round(iops, 1)                                           AS iops
FROM (
    -- Top-N first, then number them: a window over every interval of the step would sort them all.
    SELECT *, multiIf({rank_by:String} = 'p99', toFloat64(p99_ns), {rank_by:String} = 'mean', mean_ns,
                      toFloat64(max_ns)) AS score
    FROM scored
    ORDER BY score DESC, host, vm, target, direction, interval_start
    LIMIT {limit:UInt32}
)
ORDER BY rank
