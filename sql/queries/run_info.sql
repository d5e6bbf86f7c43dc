-- What ran: a run's tool, scenario, host topology, links, tool versions and time span, from its run events.
--
-- The "test setup" section of a lab report: which tool made the data (and which version of it), on which hosts
-- and links, when the run started and ended and how many steps it ran. One row, from the run events alone.
--
-- Parameters:
--   run_id        String        the run (see `ioscale sql run_list`)
--
-- Columns:
--   run_id          the run's id
--   scenario        scenario or test name
--   tool            what produced the data: iometer, diskspd, vmfleet, fio, simulator, live
--   description     free text from the run
--   started         RUN_STARTED time (else the first event's), UTC
--   ended           RUN_ENDED time (else the last event's), UTC
--   end_recorded    true when a RUN_ENDED event exists (else `ended` is the last event seen)
--   duration_s      ended - started, seconds
--   steps           load steps started
--   steps_ended     load steps with a STEP_ENDED event (a measured window)
--   hosts           the topology: (host, hypervisor, sockets, cores, logical_processors, memory_bytes) per host
--   links           the declared ports: (host, port_id, kind, speed_bps, payload_bytes_per_s, full_duplex)
--   versions        (key, value) of every tag naming a version ('fio_version', 'iperf3_version', ...), sorted
--   run_tags        the RUN_STARTED event's tags (seed, simulated, configuration labels, ...)
--
-- Notes:
--   Hosts and links are those of the latest event declaring any (RUN_STARTED as a rule). Versions are gathered
--   from every event: importers put the tool's version on the step events, live runners on the run's.
--   FINAL: run events arrive at least once through the Kafka engine; FINAL keeps one row per event.
SELECT
    run_id,
    any(scenario)                                                                    AS scenario,
    any(tool)                                                                        AS tool,
    anyIf(description, description != '')                                            AS description,
    if(countIf(event_type = 'run_started') > 0, minIf(ts, event_type = 'run_started'), min(ts)) AS started,
    if(countIf(event_type = 'run_ended') > 0, maxIf(ts, event_type = 'run_ended'), max(ts))    AS ended,
    countIf(event_type = 'run_ended') > 0                                            AS end_recorded,
    round((toUnixTimestamp64Milli(ended) - toUnixTimestamp64Milli(started)) / 1000, 1) AS duration_s,
    uniqExactIf(step_index, event_type = 'step_started')                             AS steps,
    uniqExactIf(step_index, event_type = 'step_ended')                               AS steps_ended,
    argMaxIf(hosts, ts, length(hosts) > 0)                                           AS hosts,
    argMaxIf(links, ts, length(links) > 0)                                           AS links,
    arraySort(groupUniqArrayArray(arrayFilter(kv -> endsWith(kv.1, '_version') AND kv.2 != '',
                                              arrayZip(mapKeys(tags), mapValues(tags)))))  AS versions,
    argMaxIf(tags, ts, event_type = 'run_started')                                   AS run_tags
FROM ioscale.run_events FINAL
WHERE run_id = {run_id:String}
GROUP BY run_id
