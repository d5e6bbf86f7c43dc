-- Saturation and SLO-breach events of a run, with the evidence and the step they happened in.
--
-- When did the run stop scaling, and why? The Flink job raises an alert when a step saturates (a port
-- direction or a host CPU at its threshold, or throughput stalling while latency grows: the device knee) and
-- when a latency objective is breached; each alert carries the numbers it was decided on. The step's own
-- figures are joined in so the alert reads in context.
--
-- Parameters:
--   run_id        String                                   the run (see `ioscale sql run_list`)
--   kind          String = all {all|saturation|slo_breach}  which alerts
--   phase         String = all {all|live|final}             live = raised while the step ran; final = at its end
--
-- Columns:
--   step_index        step, 0-based
--   step_label        the step's label ('' when the step row is not there yet)
--   event_ts          when the alert was raised (event time), UTC
--   kind              saturation | slo_breach
--   phase             live | final
--   severity          warning (saturation) | critical (SLO breach)
--   resource          what: 'port <host>/<port> RX', 'cpu <host>', 'device', 'latency <objective>'
--   value             the number compared: utilization %, latency ns or latency growth %
--   threshold         the threshold it was compared with, same unit
--   evidence          the job's explanation, with the figures it used
--   step_iops         the step's IOPS (Flink step row)
--   step_p99_us       the step's p99 latency, microseconds (NULL when the step has no histogram)
--   step_gain_pct     the step's throughput gain over the previous step, %
--   step_saturation   the step's verdict: SCALING | SATURATED | UNDETERMINED
--
-- Notes:
--   FINAL on both tables: the job writes at least once and re-emits rows with a larger version; FINAL keeps one
--   alert per identity (run, step, kind, phase, resource) and one step row per (run, step).
--   join_use_nulls = 1: an alert whose step row is not written yet shows NULL step figures, not zeros.
SELECT
    al.step_index                                      AS step_index,
    ifNull(sc.step_label, '')                          AS step_label,
    al.event_ts                                        AS event_ts,
    al.kind                                            AS kind,
    al.phase                                           AS phase,
    al.severity                                        AS severity,
    al.resource                                        AS resource,
    round(al.value, 3)                                 AS value,
    round(al.threshold, 3)                             AS threshold,
    al.evidence                                        AS evidence,
    round(sc.iops, 1)                                  AS step_iops,
    round(sc.p99_ns / 1e3, 3)                          AS step_p99_us,
    round(sc.throughput_gain_pct, 2)                   AS step_gain_pct,
    sc.saturation_status                               AS step_saturation
FROM (
    SELECT * FROM ioscale.alerts FINAL
    WHERE run_id = {run_id:String}
      AND ({kind:String} = 'all' OR kind = {kind:String})
      AND ({phase:String} = 'all' OR phase = {phase:String})
) AS al
LEFT JOIN (SELECT * FROM ioscale.scaling_curves FINAL WHERE run_id = {run_id:String}) AS sc
    ON sc.step_index = al.step_index
ORDER BY step_index, event_ts, kind, phase, resource
SETTINGS join_use_nulls = 1
