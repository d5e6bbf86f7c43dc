-- Samples and ops per step in each of a run's I/O result tables, beside what the raw samples say they should be.
--
-- What `ioscale analyze` checks after its replay: the Flink job's rollups and scaling curve must account for
-- every raw I/O sample of the run, once. A row where expected and got differ names the table and step that lost
-- (or doubled) samples; NULL on one side means that side has no row for the step. Run it yourself to look at
-- an analysis again (`ioscale analyze RUN --check-only` runs the same comparison).
--
-- Parameters:
--   run_id            String        the run (see `ioscale sql run_list`)
--
-- Columns:
--   result_table      io_samples_1s | io_samples_10s | io_samples_1m | io_fleet_1s | io_fleet_10s | io_fleet_1m
--                     | scaling_curves
--   step_index        step, 0-based (-1: samples of no step)
--   expected_samples  raw I/O samples the table's rows of the step should hold (NULL: none expected)
--   expected_ops      raw I/Os (ops) they carry
--   got_samples       samples in the table's rows of the step (NULL: the table has no row for the step)
--   got_ops           ops in those rows
--
-- Notes:
--   Rollups: every sample of the step lands in exactly one window of each grain (the window holding its ts),
--   so a table's samples and ops summed over the step equal the step's raw samples and ops.
--   scaling_curves: step_samples counts the samples in the step's seconds [step_start, step_end), ops only
--   those in its steady seconds [steady_start, steady_end); the job adds samples of no step (-1) in those
--   seconds too. Expected is computed over the row's own windows, so it checks the row's figures, not the
--   job's choice of steady state. A step with STEP_ENDED and samples in its seconds but no row is expected
--   to have one (the job writes a row for every ended step with I/O); its start is STEP_STARTED's time, else
--   STEP_ENDED's start_ts (without either, samples of no step are not counted for it).
--   A network test's rows (throughput_basis PORT: a run without I/O samples) count its whole-port samples
--   (queue = -1) by time, whatever their step; ops are frames as the job counts them: per second, the larger
--   direction of the port kind that moved the most bytes.
--   The raw side is read once (io_samples FINAL: a redelivered sample counts once), summed per step and
--   second, and kept as an array (a scalar subquery runs once; a CTE used twice would read io_samples twice).
--   Result tables read with FINAL: a window re-emitted with more data replaces its earlier row.
--   Cost: FINAL over the per-source 1 s rollup dominates. 10 M raw samples with 10 M per-source seconds in
--   overlapping parts (the worst case for FINAL) took 5.7 s on 2 cores, 2 M took 0.5 s; `--no-check` skips it.
WITH
    (
        SELECT groupArray((step_index, second, samples, ops))
        FROM (
            SELECT step_index, toStartOfSecond(ts) AS second, count() AS samples, sum(ops) AS ops
            FROM ioscale.io_samples FINAL
            WHERE run_id = {run_id:String}
            GROUP BY step_index, second
        )
    ) AS raw_seconds,
    (
        SELECT groupArray((-1, second, samples, ops))
        FROM (
            SELECT second, sum(n) AS samples, argMax(frames, bytes) AS ops
            FROM (
                SELECT toStartOfSecond(ts) AS second, kind, count() AS n, greatest(sum(rx_bytes), sum(tx_bytes)) AS bytes,
                       greatest(sum(rx_frames), sum(tx_frames)) AS frames
                FROM ioscale.port_samples FINAL
                WHERE run_id = {run_id:String} AND queue = -1
                GROUP BY second, kind
            )
            GROUP BY second
        )
    ) AS port_seconds,
    raw_steps AS (
        SELECT t.1 AS step_index, sum(t.3) AS samples, sum(t.4) AS ops
        FROM (SELECT arrayJoin(raw_seconds) AS t)
        GROUP BY step_index
    ),
    curves AS (
        SELECT step_index, step_start, step_end, steady_start, steady_end, step_samples, ops, throughput_basis
        FROM ioscale.scaling_curves FINAL
        WHERE run_id = {run_id:String}
    ),
    ended AS (
        -- Steps the job must have written a row for, and where their seconds start (see Notes).
        SELECT
            step_index,
            if(countIf(event_type = 'step_started') > 0, minIf(ts, event_type = 'step_started'),
               anyIf(start_ts, event_type = 'step_ended'))                  AS started,
            anyIf(coalesce(end_ts, ts), event_type = 'step_ended')          AS ended_at
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND event_type IN ('step_started', 'step_ended')
        GROUP BY step_index
        HAVING countIf(event_type = 'step_ended') > 0
    ),
    expected AS (
        SELECT result_table, step_index, samples, ops
        FROM raw_steps
        ARRAY JOIN ['io_samples_1s', 'io_samples_10s', 'io_samples_1m',
                    'io_fleet_1s', 'io_fleet_10s', 'io_fleet_1m'] AS result_table
        UNION ALL
        -- Each scaling_curves row over its own seconds ...
        SELECT 'scaling_curves', step_index, arraySum(t -> t.3, step_seconds), arraySum(t -> t.4, steady_seconds)
        FROM (
            SELECT step_index,
                   if(throughput_basis = 'PORT', port_seconds, raw_seconds) AS seconds,
                   arrayFilter(t -> (t.1 = step_index OR t.1 = -1)
                                    AND t.2 >= toStartOfSecond(step_start) AND t.2 < step_end, seconds) AS step_seconds,
                   arrayFilter(t -> (t.1 = step_index OR t.1 = -1)
                                    AND t.2 >= steady_start AND t.2 < steady_end, seconds) AS steady_seconds
            FROM curves
        )
        UNION ALL
        -- ... and an ended step with I/O (in a run without I/O samples: port samples) but no row: the whole step.
        SELECT 'scaling_curves', step_index, samples, ops
        FROM (
            SELECT step_index,
                   arrayFilter(t -> (t.1 = step_index OR (t.1 = -1 AND started IS NOT NULL))
                                    AND t.2 >= toStartOfSecond(coalesce(started, toDateTime64(0, 3, 'UTC')))
                                    AND t.2 < ended_at, if(empty(raw_seconds), port_seconds, raw_seconds))
                       AS step_seconds,
                   arraySum(t -> t.3, step_seconds) AS samples,
                   arraySum(t -> t.4, step_seconds) AS ops
            FROM ended
            WHERE step_index NOT IN (SELECT step_index FROM curves)
        )
        WHERE samples > 0
    ),
    got AS (
        SELECT 'io_samples_1s' AS result_table, step_index, sum(samples) AS samples, sum(ops) AS ops
        FROM ioscale.io_samples_1s FINAL WHERE run_id = {run_id:String} GROUP BY step_index
        UNION ALL
        SELECT 'io_samples_10s', step_index, sum(samples), sum(ops)
        FROM ioscale.io_samples_10s FINAL WHERE run_id = {run_id:String} GROUP BY step_index
        UNION ALL
        SELECT 'io_samples_1m', step_index, sum(samples), sum(ops)
        FROM ioscale.io_samples_1m FINAL WHERE run_id = {run_id:String} GROUP BY step_index
        UNION ALL
        SELECT 'io_fleet_1s', step_index, sum(samples), sum(ops)
        FROM ioscale.io_fleet_1s FINAL WHERE run_id = {run_id:String} GROUP BY step_index
        UNION ALL
        SELECT 'io_fleet_10s', step_index, sum(samples), sum(ops)
        FROM ioscale.io_fleet_10s FINAL WHERE run_id = {run_id:String} GROUP BY step_index
        UNION ALL
        SELECT 'io_fleet_1m', step_index, sum(samples), sum(ops)
        FROM ioscale.io_fleet_1m FINAL WHERE run_id = {run_id:String} GROUP BY step_index
        UNION ALL
        SELECT 'scaling_curves', step_index, step_samples, ops FROM curves
    )
SELECT
    coalesce(e.result_table, g.result_table)  AS result_table,
    coalesce(e.step_index, g.step_index)      AS step_index,
    e.samples                                 AS expected_samples,
    e.ops                                     AS expected_ops,
    g.samples                                 AS got_samples,
    g.ops                                     AS got_ops
FROM expected AS e
FULL OUTER JOIN got AS g ON e.result_table = g.result_table AND e.step_index = g.step_index
ORDER BY indexOf(['io_samples_1s', 'io_samples_10s', 'io_samples_1m', 'io_fleet_1s', 'io_fleet_10s', 'io_fleet_1m',
                  'scaling_curves'], result_table), step_index
SETTINGS join_use_nulls = 1
