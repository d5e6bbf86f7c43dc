-- The runs ClickHouse knows about, newest first: what ran, when, how long, how many steps.
--
-- The starting point of every other query: it gives the run_id they take. Built from the run events alone, so
-- it answers instantly however much sample data the runs hold.
--
-- Parameters:
--   scenario      String = ''        only runs of this scenario ('' = all)
--   sweep_group   String = ''        only the runs imported together as sweeps of one input ('' = all)
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
--   sweep_group     the id the runs imported from one input share (`ioscale import` makes one run per sweep);
--                   '' for runs not imported that way
--   sweep_axis      the load axis the run's steps step along (iodepth, numjobs, vm_count, targets, bs, rw)
--   sweep           what sets the run apart from the others of its group (e.g. access spec '4K random read')
--
-- Notes:
--   FINAL: run events arrive at least once through the Kafka engine; FINAL keeps one row per event.
--   The sweep columns come from the config_labels of the step events, where the importer puts them.
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
    anyIf(description, description != '')                                AS description,
    anyIf(config_labels['sweep_group'], has_load)                        AS sweep_group,
    anyIf(config_labels['sweep_axis'], has_load)                         AS sweep_axis,
    anyIf(config_labels['sweep'], has_load)                              AS sweep
FROM ioscale.run_events FINAL
GROUP BY run_id
HAVING ({scenario:String} = '' OR scenario = {scenario:String})
   AND ({sweep_group:String} = '' OR sweep_group = {sweep_group:String})
ORDER BY started DESC, run_id
LIMIT {limit:UInt32}
