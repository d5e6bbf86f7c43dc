-- One row per run from the run events (Superset dataset runs): what the Run filters of the live and fleet
-- balance dashboards list, newest first.
CREATE OR REPLACE VIEW ioscale.dash_runs AS
SELECT
    run_id,
    any(scenario)                                                        AS scenario,
    any(tool)                                                            AS tool,
    arrayStringConcat(arrayMap(kv -> concat(kv.1, '=', kv.2),
        arraySort(arrayZip(mapKeys(argMaxIf(config_labels, ts, has_load)),
                           mapValues(argMaxIf(config_labels, ts, has_load))))), ', ') AS config,
    if(countIf(event_type = 'run_started') > 0, minIf(ts, event_type = 'run_started'), min(ts)) AS started,
    if(countIf(event_type = 'run_ended') > 0, maxIf(ts, event_type = 'run_ended'), NULL)      AS ended,
    max(ts)                                                              AS last_event,
    uniqExactIf(step_index, event_type = 'step_started')                 AS steps,
    max(vm_count)                                                        AS max_vm_count,
    anyIf(description, description != '')                                AS description
FROM ioscale.run_events FINAL
GROUP BY run_id
