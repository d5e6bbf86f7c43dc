-- Saturation and SLO-breach events of the Flink job (Superset dataset alerts), FINAL, with the step's label
-- and the value in readable units: port and CPU utilization in %, latency objectives in µs or ms. emitted_at (when
-- the job wrote the alert, wall clock) is what a scheduled check uses to find new alerts: event_ts is the data's
-- own time, which for an imported or simulated run is far from now.
CREATE OR REPLACE VIEW ioscale.dash_alerts AS
SELECT
    a.event_ts                                                           AS event_ts,
    a.run_id                                                             AS run_id,
    a.step_index                                                         AS step_index,
    s.step_label                                                         AS step_label,
    a.kind                                                               AS kind,
    a.phase                                                              AS phase,
    a.severity                                                           AS severity,
    a.resource                                                           AS resource,
    splitByChar(' ', toString(a.resource))[1]                            AS resource_kind,
    concat(a.kind, ': ', a.resource)                                     AS alert,
    a.value                                                              AS value,
    a.threshold                                                          AS threshold,
    multiIf(resource_kind = 'latency' AND a.value >= 1e6, concat(toString(round(a.value / 1e6, 2)), ' ms'),
            resource_kind = 'latency', concat(toString(round(a.value / 1e3, 1)), ' µs'),
            concat(toString(round(a.value, 1)), ' %'))                   AS value_text,
    multiIf(resource_kind = 'latency' AND a.threshold >= 1e6, concat(toString(round(a.threshold / 1e6, 2)), ' ms'),
            resource_kind = 'latency', concat(toString(round(a.threshold / 1e3, 1)), ' µs'),
            concat(toString(round(a.threshold, 1)), ' %'))               AS threshold_text,
    a.evidence                                                           AS evidence,
    a.alert_id                                                           AS alert_id,
    a.emitted_at                                                         AS emitted_at
FROM ioscale.alerts AS a FINAL
LEFT JOIN (SELECT run_id, step_index, step_label FROM ioscale.scaling_curves FINAL) AS s
    ON s.run_id = a.run_id AND s.step_index = a.step_index
