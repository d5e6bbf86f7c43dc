-- Computes step_windows every 15 s for the steps that need it: a step that has ended (STEP_ENDED), whose
-- samples stopped arriving 20 s ago (io_samples_hist_sums' ingested_at; a step still receiving samples would be
-- computed again at once), and where some VM or source has no row yet, or a row that no longer holds (samples
-- added since, or another window). Its STEP_ENDED arrived within a day, or the step has no row at all: older
-- steps are not looked at again, and a sample reaching one later only sends its VM or source to io_samples FINAL
-- in the queries (exact, slower). At most 20 steps per refresh, newest first: a backlog is worked off over
-- several.
-- A step's rows are looked at only when something may have changed them: the step has no rows, its rows' window
-- is not its STEP_ENDED window, or a sample arrived after its newest computation less 15 s. A step is computed
-- only once its samples are 20 s old, so a sample that arrives later, or was inserted then but not yet visible
-- to the computation, is newer than that; a write stalled for over 5 s across a computation (a full disk)
-- leaves its rows unused by the queries, which then merge from io_samples FINAL: late, never wrong.
--
-- Why a row cannot claim samples it lacks: what to compute and what each row will stand for (source_samples)
-- come from one read of io_samples_hist_sums (the scalar `todo`, run before the rest of the query), and the
-- 20 s settle means no insert was under way for the step. A sample whose insert lands while the refresh runs
-- is either in that read (then the step is not settled: skipped) or not (then its VM's and source's samples
-- outgrow source_samples and readers stop using the rows). The inserts into io_samples and its views are not
-- atomic with each other (ClickHouse makes no such promise), which is why the settle time is there.
--
-- The computation is the queries' own merge of a VM's or source's samples from io_samples FINAL (their answers
-- are checked against reference formulations in tests/integration/sqllib), for both grains in one read
-- (GROUPING SETS). The step sums of io_samples_hist_sums minus the samples outside the window are no faster for
-- a single computation, and their query text costs more to analyse at each refresh.
-- Keys: io_samples_hist_sums leaves target and direction '' at grain vm_step, as the vm rows here do, and a
-- source always has a direction, so (run, step, host, vm, target, direction) names a row of either grain.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.step_windows_refresh
REFRESH EVERY 15 SECOND APPEND TO ioscale.step_windows AS
WITH
    (
        -- What to compute (steps, their windows as Int64 ms) and what each row stands for (the samples of
        -- every VM and source), in one read of io_samples_hist_sums.
        WITH ended AS (
            SELECT run_id, step_index,
                   toUnixTimestamp64Milli(ifNull(anyIf(start_ts, event_type = 'step_ended'),
                                                 assumeNotNull(anyIf(end_ts, event_type = 'step_ended')))) AS start_ms,
                   toUnixTimestamp64Milli(assumeNotNull(anyIf(end_ts, event_type = 'step_ended')))     AS end_ms
            FROM ioscale.run_events FINAL
            WHERE event_type = 'step_ended'
            GROUP BY run_id, step_index
            HAVING anyIf(end_ts, event_type = 'step_ended') IS NOT NULL
               AND (max(ingested_at) > now64(3) - INTERVAL 1 DAY
                    OR (run_id, step_index) NOT IN (SELECT run_id, step_index FROM ioscale.step_windows))
        ),
        -- Computed once, as a scalar: the steps to look at are used three times below, and a CTE is evaluated
        -- at each use.
        (
            -- Of those, the steps with no rows, with rows of another window, or where a sample arrived after the
            -- newest computation of the step (which computed all its rows) less 15 s: any other step's rows still
            -- hold, and its keys need not be read.
            SELECT groupArray((e.run_id, e.step_index, e.start_ms, e.end_ms))
            FROM ended AS e
            LEFT JOIN (
                -- grain vm: a computation writes every VM's row with its sources' (a VM per 2-4 sources)
                SELECT run_id, step_index, max(computed_at) AS computed,
                       toUnixTimestamp64Milli(argMax(window_start, computed_at)) AS row_start_ms,
                       toUnixTimestamp64Milli(argMax(window_end, computed_at)) AS row_end_ms
                FROM ioscale.step_windows
                WHERE (run_id, step_index) IN (SELECT run_id, step_index FROM ended) AND grain = 'vm'
                GROUP BY run_id, step_index
            ) AS w USING (run_id, step_index)
            LEFT JOIN (
                -- step_ts: a few rows per second of the step, where source_step has one per source
                SELECT run_id, step_index, max(ingested_at) AS samples_in
                FROM ioscale.io_samples_hist_sums
                WHERE (run_id, step_index) IN (SELECT run_id, step_index FROM ended) AND grain = 'step_ts'
                GROUP BY run_id, step_index
            ) AS s USING (run_id, step_index)
            WHERE w.computed IS NULL OR w.row_start_ms != e.start_ms OR w.row_end_ms != e.end_ms
               OR s.samples_in > w.computed - INTERVAL 15 SECOND
        ) AS candidate_list,
        candidates AS (
            SELECT c.1 AS run_id, c.2 AS step_index, c.3 AS start_ms, c.4 AS end_ms
            FROM (SELECT arrayJoin(candidate_list) AS c)
        )
        SELECT (groupArray(step_key), groupArray(start_ms), groupArray(end_ms), groupArrayArray(row_keys),
                groupArrayArray(row_samples), groupArray((run_id, step_index)))
        FROM (
            SELECT run_id, step_index, cityHash64(run_id, step_index) AS step_key, any(e.start_ms) AS start_ms,
                   any(e.end_ms) AS end_ms,
                   groupArray(cityHash64(run_id, step_index, host, vm, target, direction)) AS row_keys,
                   groupArray(c.samples) AS row_samples, max(c.last_in) AS last_in
            FROM (
                SELECT run_id, step_index, host, vm, target, direction, sum(samples) AS samples,
                       max(ingested_at) AS last_in
                FROM ioscale.io_samples_hist_sums
                WHERE (run_id, step_index) IN (SELECT run_id, step_index FROM candidates)
                  AND grain IN ('vm_step', 'source_step')
                GROUP BY run_id, step_index, grain, host, vm, target, direction
            ) AS c
            INNER JOIN candidates AS e USING (run_id, step_index)
            LEFT JOIN (
                SELECT run_id, step_index, host, vm, target, direction, source_samples,
                       toUnixTimestamp64Milli(window_start) AS row_start_ms, toUnixTimestamp64Milli(window_end) AS row_end_ms
                FROM ioscale.step_windows FINAL
                WHERE (run_id, step_index) IN (SELECT run_id, step_index FROM candidates)
            ) AS w USING (run_id, step_index, host, vm, target, direction)
            GROUP BY run_id, step_index
            HAVING last_in < now64(3) - INTERVAL 20 SECOND
               AND countIf(w.source_samples IS NULL OR w.source_samples != c.samples
                           OR w.row_start_ms != e.start_ms OR w.row_end_ms != e.end_ms) > 0
            ORDER BY last_in DESC
            LIMIT 20
        )
        SETTINGS join_use_nulls = 1
    ) AS todo,
    todo.1 AS step_keys,
    todo.2 AS starts_ms,
    todo.3 AS ends_ms,
    todo.4 AS row_keys,
    todo.5 AS row_samples,
    tokens AS (
        -- Every VM and source of the steps computed, with the samples its row stands for.
        SELECT run_id, step_index, if(grain = 'vm_step', 'vm', 'source') AS row_grain, host, vm, target, direction,
               transform(cityHash64(run_id, step_index, host, vm, target, direction), row_keys, row_samples,
                         toUInt64(0)) AS source_samples
        FROM ioscale.io_samples_hist_sums
        WHERE (run_id, step_index) IN (SELECT tupleElement(p, 1), tupleElement(p, 2) FROM (SELECT arrayJoin(todo.6) AS p))
          AND grain IN ('vm_step', 'source_step')
          AND has(row_keys, cityHash64(run_id, step_index, host, vm, target, direction))
        GROUP BY run_id, step_index, grain, host, vm, target, direction
    ),
    windows AS (
        -- A VM's or source's samples in the window, merged from io_samples FINAL (by primary key) as the
        -- queries merge one without a row here.
        WITH length(latency_bucket_index) = length(latency_bucket_count) AS well_formed
        SELECT
            run_id, step_index, host, vm, target, direction,
            -- (aliases unlike the columns: one named like a column would shadow it in the others)
            count()                                                   AS window_samples,
            sum(ops)                                                  AS window_ops,
            sum(interval_ms)                                          AS window_interval_ms,
            sum(latency_count)                                        AS window_latency_count,
            sum(latency_sum_ns)                                       AS window_latency_sum_ns,
            minIf(latency_min_ns, latency_count > 0)                  AS window_min_ns,
            max(latency_max_ns)                                       AS window_max_ns,
            -- Buckets with their counts packed into one UInt64 (bucket << 47 | count; a step's bucket count
            -- stays far below 2^47) so that one plain arraySort orders them by bucket. Bucket arrays of
            -- unequal lengths are left out and counted (an error here would stop every refresh).
            arraySort(groupArrayArrayIf(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), c),
                                                 if(well_formed, latency_bucket_index, []),
                                                 if(well_formed, latency_bucket_count, [])),
                                        latency_hist_scheme = 1)) AS packed,
            countIf(NOT well_formed)                                  AS malformed,
            arrayMap(p -> bitAnd(p, 140737488355327), packed)     AS counts,
            arraySum(counts)                                          AS latency_n,
            toUInt16(bitShiftRight(packed[arrayFirstIndex(c -> c >= ceil(0.99 * latency_n), arrayCumSum(counts))], 47)) AS p99_index,
            ioscaleQuantileNs(0.99, ioscaleBucketValueNs(p99_index), latency_n, window_min_ns, window_max_ns) AS p99_ns
        FROM ioscale.io_samples FINAL
        WHERE (run_id, step_index) IN (SELECT tupleElement(p, 1), tupleElement(p, 2) FROM (SELECT arrayJoin(todo.6) AS p))
          AND toUnixTimestamp64Milli(ts) >= transform(cityHash64(run_id, step_index), step_keys, starts_ms, toInt64(0))
          AND toUnixTimestamp64Milli(ts) < transform(cityHash64(run_id, step_index), step_keys, ends_ms, toInt64(0))
        GROUP BY GROUPING SETS ((run_id, step_index, host, vm), (run_id, step_index, host, vm, target, direction))
        SETTINGS group_by_use_nulls = 0
    )
SELECT
    t.run_id AS run_id, t.step_index AS step_index, t.row_grain AS grain, t.host AS host, t.vm AS vm,
    t.target AS target, t.direction AS direction,
    fromUnixTimestamp64Milli(transform(cityHash64(t.run_id, t.step_index), step_keys, starts_ms, toInt64(0)), 'UTC') AS window_start,
    fromUnixTimestamp64Milli(transform(cityHash64(t.run_id, t.step_index), step_keys, ends_ms, toInt64(0)), 'UTC') AS window_end,
    t.source_samples AS source_samples,
    -- A VM or source without samples in the window gets a row too (samples = 0), or it would be computed
    -- again forever.
    ifNull(w.window_samples, 0) AS samples, ifNull(w.window_ops, 0) AS ops, ifNull(w.window_interval_ms, 0) AS interval_ms,
    ifNull(w.window_latency_count, 0) AS latency_count, ifNull(w.window_latency_sum_ns, 0) AS latency_sum_ns,
    ifNull(w.window_min_ns, 0) AS latency_min_ns, ifNull(w.window_max_ns, 0) AS latency_max_ns,
    ifNull(w.latency_n, 0) AS latency_n, ifNull(w.p99_ns, 0) AS p99_ns, ifNull(w.malformed, 0) AS malformed_samples,
    now64(3) AS computed_at
FROM tokens AS t
LEFT JOIN windows AS w ON w.run_id = t.run_id AND w.step_index = t.step_index AND w.host = t.host AND w.vm = t.vm
                      AND w.target = t.target AND w.direction = t.direction
-- One thread at the lowest CPU priority: a step is computed while the next one streams live, and the live
-- rollups come first (a 10,000-source step: ~2.5 s of CPU, which on all threads at normal priority would hold up
-- the next step's live rows).
SETTINGS join_use_nulls = 1, max_threads = 1, os_threads_nice_value_query = 19
