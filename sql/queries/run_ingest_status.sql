-- How much of a run ClickHouse holds: rows, time span and sources per raw table.
--
-- "Is my run in yet?" -- after an import or a simulation, or while a live run streams: the Kafka engine
-- ingests within seconds, and this shows what arrived (and what did not: a table at 0 rows points at a
-- collector that is not sending, a schema problem -- see `dead_letter_summary` -- or a wrong run_id).
--
-- Parameters:
--   run_id        String        the run
--
-- Columns:
--   table_name    io_samples | cpu_samples | port_samples | run_events
--   row_count     rows of the run (after FINAL: replayed duplicates not counted)
--   first_ts      earliest sample / event time, UTC (NULL without rows)
--   last_ts       latest sample / event time, UTC
--   steps         distinct step_index values (events: including -1 for run-level events)
--   sources       distinct sources: (host, VM, target, direction) | (host, VM, scope, cpu) | (host, port, queue)
--                 | event types
--   last_ingested when ClickHouse last wrote a row of the run, UTC
--
-- Notes:
--   FINAL so that a replay after a consumer restart does not look like extra data.
--   Sources are counted as distinct 64-bit hashes of their identity: uniqExact over a UInt64 is ~2.5x faster
--   than over the tuple of strings, and a collision among even 10^5 sources has a chance of ~10^-10.
SELECT *
FROM (
    SELECT 'io_samples' AS table_name, count() AS row_count,
           if(row_count > 0, min(ts), NULL) AS first_ts, if(row_count > 0, max(ts), NULL) AS last_ts,
           uniqExact(step_index) AS steps, uniqExact(cityHash64(host, vm, target, direction)) AS sources,
           if(row_count > 0, max(ingested_at), NULL) AS last_ingested
    FROM ioscale.io_samples FINAL WHERE run_id = {run_id:String}
    UNION ALL
    SELECT 'cpu_samples', count() AS row_count, if(row_count > 0, min(ts), NULL), if(row_count > 0, max(ts), NULL),
           uniqExact(step_index), uniqExact(cityHash64(host, vm, scope, cpu)), if(row_count > 0, max(ingested_at), NULL)
    FROM ioscale.cpu_samples FINAL WHERE run_id = {run_id:String}
    UNION ALL
    SELECT 'port_samples', count() AS row_count, if(row_count > 0, min(ts), NULL), if(row_count > 0, max(ts), NULL),
           uniqExact(step_index), uniqExact(cityHash64(host, port_id, queue)), if(row_count > 0, max(ingested_at), NULL)
    FROM ioscale.port_samples FINAL WHERE run_id = {run_id:String}
    UNION ALL
    SELECT 'run_events', count() AS row_count, if(row_count > 0, min(ts), NULL), if(row_count > 0, max(ts), NULL),
           uniqExact(step_index), uniqExact(event_type), if(row_count > 0, max(ingested_at), NULL)
    FROM ioscale.run_events FINAL WHERE run_id = {run_id:String}
)
ORDER BY table_name
