-- A run's timeline for the Saturation dashboard (Superset dataset run_timeline): the load steps as a staircase
-- (series 'load step': the step index at each STEP_STARTED, and once more at the run's last event so the last
-- step has a length) and every alert of the Flink job at the time it was raised and its step (series
-- '<kind>: <resource>').
CREATE OR REPLACE VIEW ioscale.dash_run_timeline AS
SELECT ts, run_id, step_index, 'load step' AS series, step_label AS detail
FROM ioscale.run_events FINAL
WHERE event_type = 'step_started'
UNION ALL
SELECT last_ts AS ts, run_id, last_step AS step_index, 'load step' AS series, '' AS detail
FROM (
    SELECT run_id, max(ts) AS last_ts, argMax(step_index, ts) AS last_step
    FROM ioscale.run_events FINAL
    WHERE event_type IN ('step_started', 'step_ended')
    GROUP BY run_id
)
UNION ALL
SELECT event_ts AS ts, run_id, step_index, concat(kind, ': ', resource) AS series, evidence AS detail
FROM ioscale.alerts FINAL
