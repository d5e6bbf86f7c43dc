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
--   The two grains are two parts of one top-N; the part not asked for is cut by a constant-false WHERE, so
--   only one is computed. FINAL: the Kafka engine delivers at least once.
--   Speed (issue 4): at grain interval ranked by max or mean, only the rows shown read their buckets (by
--   primary key); every row's p99 is computed only when ranking by it. At grain source, each source's step
--   histogram comes from io_samples_hist_sums (grain source_step, migration 0040) minus its samples outside
--   the window, found by time in io_samples_hist_by_ts (0041) -- counts add and subtract exactly -- and its
--   p99 follows the same rank rule on its buckets, sorted (packed into one UInt64 per bucket, and the sum
--   joined to its outside samples rather than grouped with them: ~30 % less CPU than one GROUP BY over
--   every bucket). A source that received a sample twice (the sum would count it twice; see 0040), or a
--   step without STEP_ENDED, is merged from io_samples FINAL as before.
--   No FINAL on io_samples_hist_sums (session 7): an AggregatingMergeTree FINAL that reads hist merges every
--   range its key shares with another part, Maps included, so its cost follows the table's parts rather than
--   the run (see lagging_vms). A source's rows are summed here as FINAL would: packed arrays concatenated
--   (counts add), samples summed and bitmaps merged (groupBitmapMerge). CPU per call at grain source, p99, on
--   the 320-VM run's last step, alternating with the previous form, 20 calls each: 298 -> 247 ms.
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
    window_samples AS (
        SELECT s.host AS host, s.vm AS vm, s.target AS target, s.direction AS direction, s.ts AS ts,
               s.interval_ms AS interval_ms, s.ops AS ops, s.latency_count AS latency_count,
               s.latency_sum_ns AS latency_sum_ns, s.latency_min_ns AS latency_min_ns,
               s.latency_max_ns AS latency_max_ns, s.latency_hist_scheme AS latency_hist_scheme,
               s.latency_bucket_index AS latency_bucket_index, s.latency_bucket_count AS latency_bucket_count
        FROM ioscale.io_samples AS s FINAL
        WHERE s.run_id = {run_id:String} AND s.step_index = {step_index:Int32}
          AND (NOT ended OR (s.ts >= measured_start AND s.ts < measured_end))
    ),
    (
        -- Sources whose buckets are read from io_samples: their sum counted a sample twice (samples > distinct
        -- timestamps; or a sample had bucket arrays of unequal lengths, see 0040), or the step has not ended --
        -- as hashes of the source.
        SELECT groupArray(cityHash64(host, vm, target, direction))
        FROM (
            SELECT host, vm, target, direction
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
            GROUP BY host, vm, target, direction
            HAVING sum(samples) != groupBitmapMerge(sample_ts) OR NOT ended
        )
    ) AS raw_sources,
    counters AS (
        -- grain source: each source's counters over the window.
        SELECT host, vm, target, direction, count() AS intervals,
               if(sum(latency_count) > 0, sum(latency_sum_ns) / sum(latency_count), NULL) AS mean_ns,
               minIf(latency_min_ns, latency_count > 0) AS min_ns, max(latency_max_ns) AS max_ns,
               sum(ops) * 1000 / greatest(sum(interval_ms), 1) AS iops
        FROM window_samples
        WHERE {grain:String} = 'source'
        GROUP BY host, vm, target, direction
    ),
    plus AS (
        -- grain source: the source's step sum, packed (see sources): its rows in every part concatenated,
        -- counts add (no FINAL, see Speed) ...
        SELECT host, vm, target, direction,
               groupArrayArray(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), 70368744177664 + c), mapKeys(hist), mapValues(hist))) AS plus
        FROM ioscale.io_samples_hist_sums
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
          AND {grain:String} = 'source' AND ended
          AND NOT has(raw_sources, cityHash64(host, vm, target, direction))
        GROUP BY host, vm, target, direction
        UNION ALL
        -- ... or, for raw_sources, its samples in the window merged from io_samples as before (found by
        -- primary key: nothing is read when there is none).
        SELECT host, vm, target, direction,
               -- packed per sample: bucket arrays of unequal lengths raise an error, as they always did
               groupArrayArray(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), 70368744177664 + c),
                                        latency_bucket_index, latency_bucket_count))
        FROM ioscale.io_samples FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND {grain:String} = 'source'
          AND (host, vm, target, direction) IN (
              SELECT host, vm, target, direction
              FROM ioscale.io_samples_hist_sums
              WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
                AND has(raw_sources, cityHash64(host, vm, target, direction)))
          AND latency_hist_scheme = 1 AND (NOT ended OR (ts >= measured_start AND ts < measured_end))
        GROUP BY host, vm, target, direction
    ),
    minus AS (
        -- ... minus its samples outside the measured window (their times from the step_ts rows).
        SELECT host, vm, target, direction,
               arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), c),
                        groupArrayArray(mapKeys(hist)), groupArrayArray(mapValues(hist))) AS minus
        FROM ioscale.io_samples_hist_by_ts FINAL
        PREWHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND {grain:String} = 'source' AND ended
          AND ts IN (
              SELECT ts
              FROM ioscale.io_samples_hist_sums
              WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'step_ts'
                AND {grain:String} = 'source' AND (ts < measured_start OR ts >= measured_end))
        WHERE NOT has(raw_sources, cityHash64(host, vm, target, direction))
        GROUP BY host, vm, target, direction
    ),
    sources AS (
        -- grain source: the source's counters, and its p99 by the rank rule below over its merged buckets,
        -- sorted by bucket and, within a bucket, subtractions first (the sign bit: 0 = minus): a running sum
        -- then crosses a rank only at a bucket whose net count crosses it. Packed into one UInt64 so that one
        -- plain arraySort orders them: bucket << 47 | (1 for plus) << 46 | count (far below 2^46 in a step).
        SELECT c.host AS host, c.vm AS vm, c.target AS target, c.direction AS direction, intervals, mean_ns, min_ns, max_ns, iops,
               arraySort(arrayConcat(p.plus, m.minus)) AS packed,
               arrayMap(p -> toInt64(bitAnd(p, 70368744177663)) * if(bitTest(p, 46), 1, -1), packed) AS counts,
               toUInt64(arraySum(counts)) AS latency_n,
               toUInt16(bitShiftRight(packed[arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(counts))], 47)) AS p99_index,
               if(latency_n < 1000, max_ns, least(greatest((bitShiftLeft(toUInt64(modulo(p99_index, 128) + 128 * least(intDiv(p99_index, 128), 1)), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)), 2)), min_ns), max_ns)) AS p99_ns
        FROM counters AS c
        LEFT JOIN plus AS p ON p.host = c.host AND p.vm = c.vm AND p.target = c.target AND p.direction = c.direction
        LEFT JOIN minus AS m ON m.host = c.host AND m.vm = c.vm AND m.target = c.target AND m.direction = c.direction
    ),
    (
        -- grain interval: the top N samples, once (a scalar is computed once, a CTE once per use). Their p99
        -- -- by the rank rule of ioscale.histogram and quantileExactWeighted: the first bucket whose running
        -- count reaches ceil(0.99 x N); indexes grow with latency, so that bucket's representative is the answer
        -- -- from each row's own buckets, computed for every row only when ranking by it (else for the rows
        -- shown, see shown; a per-row aggregate state would cost ~5x more).
        SELECT groupArray((host, vm, target, direction, ts, latency_n, mean_ns, latency_max_ns, latency_min_ns, p99_ns,
                           ops * 1000 / greatest(interval_ms, 1), score, buckets_from))
        FROM (
            SELECT host, vm, target, direction, ts, interval_ms, ops, latency_min_ns, latency_max_ns,
                   -- Where a row shown reads its buckets when not ranked by p99: the time-ordered copy (1),
                   -- io_samples itself for raw_sources (2: whose odd sample may be this one), none without
                   -- buckets (0).
                   multiIf({rank_by:String} = 'p99' OR latency_hist_scheme != 1, 0,
                           has(raw_sources, cityHash64(host, vm, target, direction)), 2, 1) AS buckets_from,
                   if({rank_by:String} = 'p99', if(latency_hist_scheme = 1, arraySum(latency_bucket_count), 0), 0) AS latency_n,
                   if({rank_by:String} = 'p99', latency_bucket_index[arrayFirstIndex(c -> c >= greatest(1, toUInt64(ceil(0.99 * latency_n))), arrayCumSum(latency_bucket_count))], 0) AS p99_index,
                   if(latency_n < 1000, latency_max_ns, least(greatest((bitShiftLeft(toUInt64(modulo(p99_index, 128) + 128 * least(intDiv(p99_index, 128), 1)), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)), 2)), latency_min_ns), latency_max_ns)) AS p99_ns,
                   if(latency_count > 0, latency_sum_ns / latency_count, NULL) AS mean_ns,
                   multiIf({rank_by:String} = 'p99', toFloat64(p99_ns), {rank_by:String} = 'mean', mean_ns,
                           toFloat64(latency_max_ns)) AS score
            FROM window_samples
            WHERE {grain:String} = 'interval'
            ORDER BY score DESC, host, vm, target, direction, ts
            LIMIT {limit:UInt32}
        )
    ) AS top_intervals,
    shown AS (
        -- grain interval ranked by max or mean: the rows shown, their buckets read by primary key -- in the
        -- time-ordered copy (small granules; its Map keeps io_samples' bucket order), or io_samples itself.
        -- A tuple IN (subquery) over the sort key, not has(array, ...): only the granules holding those rows
        -- are read and merged by FINAL (~10 % less CPU for the whole query than filtering the step's rows).
        SELECT host, vm, target, direction, ts,
               arraySum(mapValues(hist)) AS latency_n,
               mapKeys(hist)[arrayFirstIndex(c -> c >= greatest(1, toUInt64(ceil(0.99 * latency_n))), arrayCumSum(mapValues(hist)))] AS p99_index,
               (bitShiftLeft(toUInt64(modulo(p99_index, 128) + 128 * least(intDiv(p99_index, 128), 1)), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)), 2)) AS p99_raw_ns
        FROM ioscale.io_samples_hist_by_ts FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32}
          AND (ts, host, vm, target, direction) IN (
              SELECT t.5, t.1, t.2, t.3, t.4 FROM (SELECT arrayJoin(arrayFilter(t -> t.13 = 1, top_intervals)) AS t))
        UNION ALL
        SELECT host, vm, target, direction, ts,
               if(latency_hist_scheme = 1, arraySum(latency_bucket_count), 0) AS latency_n,
               latency_bucket_index[arrayFirstIndex(c -> c >= greatest(1, toUInt64(ceil(0.99 * latency_n))), arrayCumSum(latency_bucket_count))] AS p99_index,
               (bitShiftLeft(toUInt64(modulo(p99_index, 128) + 128 * least(intDiv(p99_index, 128), 1)), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(p99_index, 128), 1) - 1)), 2)) AS p99_raw_ns
        FROM ioscale.io_samples FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32}
          AND (host, vm, target, direction, ts) IN (
              SELECT t.1, t.2, t.3, t.4, t.5 FROM (SELECT arrayJoin(arrayFilter(t -> t.13 = 2, top_intervals)) AS t))
    ),
    top_sources AS (
        SELECT *, multiIf({rank_by:String} = 'p99', toFloat64(p99_ns), {rank_by:String} = 'mean', mean_ns,
                          toFloat64(max_ns)) AS score
        FROM sources
        WHERE {grain:String} = 'source'
        ORDER BY score DESC, host, vm, target, direction
        LIMIT {limit:UInt32}
    )
SELECT * FROM (
    SELECT
        row_number() OVER (ORDER BY t.12 DESC, t.1, t.2, t.3, t.4, t.5) AS rank,
        t.1 AS host, t.2 AS vm, t.3 AS target, t.4 AS direction, toNullable(t.5) AS interval_start,
        toUInt64(1) AS intervals,
        if(s.host IS NULL, t.6, s.latency_n)                                 AS latency_n,
        round(t.7 / 1e3, 3)                                                  AS mean_us,
        -- Clamped to the exact [min, max]; below N = 1000 the exact max stands in (histogram.required_n).
        round(if(s.host IS NULL, t.10,
                 if(s.latency_n < 1000, t.8, least(greatest(s.p99_raw_ns, t.9), t.8))) / 1e3, 3) AS p99_us,
        round(t.8 / 1e3, 3)                                                  AS max_us,
        round(t.11, 1)                                                       AS iops
    FROM (SELECT arrayJoin(top_intervals) AS t) AS i
    LEFT JOIN shown AS s ON s.host = t.1 AND s.vm = t.2 AND s.target = t.3 AND s.direction = t.4 AND s.ts = t.5
    UNION ALL
    SELECT
        row_number() OVER (ORDER BY score DESC, host, vm, target, direction) AS rank,
        host, vm, target, direction, CAST(NULL, 'Nullable(DateTime64(3, \'UTC\'))') AS interval_start, intervals,
        latency_n,
        round(mean_ns / 1e3, 3)                                              AS mean_us,
        round(p99_ns / 1e3, 3)                                               AS p99_us,
        round(max_ns / 1e3, 3)                                               AS max_us,
        round(iops, 1)                                                       AS iops
    FROM top_sources
)
ORDER BY rank
SETTINGS join_use_nulls = 1
