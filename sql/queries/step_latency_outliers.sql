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
--   p99_us           99th percentile over the buckets, microseconds; the exact max when latency_n < 1000,
--                    NULL when latency_n = 0 (no histogram: such rows come last when ranking by p99)
--   max_us           exact largest latency, microseconds
--   iops             the source's I/Os per second over the interval(s)
--
-- Notes:
--   Window: the step's measured window (STEP_ENDED start..end), or the whole step when it has not ended.
--   p99 per interval: a 1 s interval of one source often holds < 1000 I/Os, so its "p99" is its exact max
--   (histogram.required_n); rank_by = max is the meaningful choice at grain interval.
--   The two grains are two parts of one top-N; the part not asked for is cut by a constant-false WHERE, so
--   only one is computed. FINAL: the Kafka engine delivers at least once.
--   Speed: at grain interval ranked by max or mean, only the rows shown read their buckets (by primary key,
--   from the time-ordered copy io_samples_hist_by_ts; from io_samples itself for a source whose step sum
--   counted a sample twice and while the step runs); every row's p99 is computed only when ranking by it.
--   At grain source, each source of an ended step is computed once, ~20-35 s after the step's last sample,
--   into step_windows (grain source), with the samples the row stands for; a row is used only while the
--   source's samples (io_samples_hist_sums, grain source_step) and the step's window still match it. Any
--   other source -- a step not ended or ended just now, a sample arrived since, malformed buckets -- is
--   merged from io_samples FINAL here, by primary key, as the view merges it. Much of what is left is
--   ClickHouse's analysis of the query, paid on a run without rows too. Figures: bench/RESULTS.md.
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
        -- grain interval: sources whose step sum counted a sample twice (samples > distinct timestamps; or a
        -- sample had bucket arrays of unequal lengths, see 0040), or any source while the step has not ended --
        -- as hashes of the source: a row shown reads its buckets from io_samples itself (see top_intervals).
        SELECT groupArray(cityHash64(host, vm, target, direction))
        FROM (
            SELECT host, vm, target, direction
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
              AND {grain:String} = 'interval'
            GROUP BY host, vm, target, direction
            HAVING sum(samples) != groupBitmapMerge(sample_ts) OR NOT ended
        )
    ) AS raw_sources,
    (
        -- grain source: sources whose row in step_windows still holds (computed over this window from every
        -- sample that has reached the source's step sum since, redeliveries included), as hashes.
        SELECT groupArray(cityHash64(host, vm, target, direction))
        FROM (
            SELECT host, vm, target, direction, sum(samples) AS samples
            FROM ioscale.io_samples_hist_sums
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
              AND {grain:String} = 'source' AND ended
            GROUP BY host, vm, target, direction
        ) AS c
        INNER JOIN (
            SELECT host, vm, target, direction, source_samples, malformed_samples, window_start, window_end
            FROM ioscale.step_windows FINAL
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source'
              AND {grain:String} = 'source' AND ended
        ) AS w USING (host, vm, target, direction)
        WHERE w.source_samples = c.samples AND w.malformed_samples = 0
          AND w.window_start = measured_start AND w.window_end = measured_end
    ) AS summarized,
    sources AS (
        -- grain source: a source's figures over the window as step_windows holds them (its p99 NULL without a
        -- histogram, as ioscaleQuantileNs gives below; the view stores the max there) ...
        SELECT host, vm, target, direction, samples AS intervals,
               if(latency_count > 0, latency_sum_ns / latency_count, NULL) AS mean_ns,
               latency_min_ns AS min_ns, latency_max_ns AS max_ns,
               ops * 1000 / greatest(interval_ms, 1) AS iops, latency_n, if(latency_n = 0, NULL, p99_ns) AS p99_ns
        FROM ioscale.step_windows FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source'
          AND {grain:String} = 'source' AND has(summarized, cityHash64(host, vm, target, direction)) AND samples > 0
        UNION ALL
        -- ... or merged from its samples in io_samples FINAL (a step not ended or ended just now, a sample
        -- arrived since), found by primary key -- as the view merges them. Its p99 by the rank rule below.
        SELECT host, vm, target, direction, intervals, mean_ns, min_ns, max_ns, iops, latency_n,
               ioscaleQuantileNs(0.99, ioscaleBucketValueNs(p99_index), latency_n, min_ns, max_ns) AS p99_ns
        FROM (
            SELECT host, vm, target, direction, count() AS intervals,
                   if(sum(latency_count) > 0, sum(latency_sum_ns) / sum(latency_count), NULL) AS mean_ns,
                   minIf(latency_min_ns, latency_count > 0) AS min_ns, max(latency_max_ns) AS max_ns,
                   sum(ops) * 1000 / greatest(sum(interval_ms), 1) AS iops,
                   -- Buckets with their counts packed into one UInt64 (bucket << 47 | count) so that one plain
                   -- arraySort orders them by bucket. Arrays of unequal lengths raise an error, as they always did.
                   arraySort(groupArrayArrayIf(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), c),
                                                        latency_bucket_index, latency_bucket_count),
                                               latency_hist_scheme = 1)) AS packed,
                   arrayMap(p -> bitAnd(p, 140737488355327), packed) AS counts,
                   arraySum(counts) AS latency_n,
                   toUInt16(bitShiftRight(packed[arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(counts))], 47)) AS p99_index
            FROM ioscale.io_samples FINAL
            WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND {grain:String} = 'source'
              AND (host, vm, target, direction) IN (
                  SELECT host, vm, target, direction
                  FROM ioscale.io_samples_hist_sums
                  WHERE run_id = {run_id:String} AND step_index = {step_index:Int32} AND grain = 'source_step'
                    AND {grain:String} = 'source' AND NOT has(summarized, cityHash64(host, vm, target, direction)))
              AND (NOT ended OR (ts >= measured_start AND ts < measured_end))
            GROUP BY host, vm, target, direction
        )
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
                   ioscaleQuantileNs(0.99, ioscaleBucketValueNs(p99_index), latency_n, latency_min_ns, latency_max_ns) AS p99_ns,
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
               ioscaleBucketValueNs(p99_index) AS p99_raw_ns
        FROM ioscale.io_samples_hist_by_ts FINAL
        WHERE run_id = {run_id:String} AND step_index = {step_index:Int32}
          AND (ts, host, vm, target, direction) IN (
              SELECT t.5, t.1, t.2, t.3, t.4 FROM (SELECT arrayJoin(arrayFilter(t -> t.13 = 1, top_intervals)) AS t))
        UNION ALL
        SELECT host, vm, target, direction, ts,
               if(latency_hist_scheme = 1, arraySum(latency_bucket_count), 0) AS latency_n,
               latency_bucket_index[arrayFirstIndex(c -> c >= greatest(1, toUInt64(ceil(0.99 * latency_n))), arrayCumSum(latency_bucket_count))] AS p99_index,
               ioscaleBucketValueNs(p99_index) AS p99_raw_ns
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
        -- Clamped to the exact [min, max]; below N = 1000 the exact max stands in (histogram.required_n);
        -- N = 0: NULL.
        round(if(s.host IS NULL, t.10,
                 ioscaleQuantileNs(0.99, s.p99_raw_ns, s.latency_n, t.9, t.8)) / 1e3, 3) AS p99_us,
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
