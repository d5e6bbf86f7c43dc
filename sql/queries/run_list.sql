-- The runs ClickHouse knows about, newest first: what ran, when, how long, how many steps.
--
-- The starting point of every other query: it gives the run_id they take. Built from the run events alone, so
-- it answers instantly however much sample data the runs hold.
--
-- Parameters:
--   scenario      String = ''        only runs of this scenario ('' = all)
--   limit         UInt32 = 50        rows to return
--
-- Columns:
--   run_id          the run's id (the parameter of the other queries)
--   scenario        scenario or test name
--   tool            what produced the data: iometer, diskspd, vmfleet, fio, simulator, live
--   started         RUN_STARTED time (else the first event's), UTC
--   ended           RUN_ENDED time, UTC; NULL while the run is going (or its end was not recorded)
--   duration_s      ended - started, seconds; NULL while running
--   steps           load steps started
--   steps_ended     load steps with a STEP_ENDED event (a measured window)
--   max_vm_count    the largest VM count of any step
--   hosts           physical hosts in the run's topology
--   description     free text from the run
--
-- Notes:
--   FINAL: run events arrive at least once through the Kafka engine; FINAL keeps one row per event.
SELECT
    run_id,
    any(scenario)                                                        AS scenario,
    any(tool)                                                            AS tool,
    if(countIf(event_type = 'run_started') > 0, minIf(ts, event_type = 'run_started'), min(ts)) AS started,
    if(countIf(event_type = 'run_ended') > 0, maxIf(ts, event_type = 'run_ended'), NULL) AS ended,
    round((toUnixTimestamp64Milli(ended) - toUnixTimestamp64Milli(started)) / 1000, 1) AS duration_s,
    uniqExactIf(step_index, event_type = 'step_started')                 AS steps,
    uniqExactIf(step_index, event_type = 'step_ended')                   AS steps_ended,
    max(vm_count)                                                        AS max_vm_count,
    max(length(hosts))                                                   AS hosts,
    anyIf(description, description != '')                                AS description
FROM ioscale.run_events FINAL
GROUP BY run_id
HAVING {scenario:String} = '' OR scenario = {scenario:String}
ORDER BY started DESC, run_id
LIMIT {limit:UInt32}
