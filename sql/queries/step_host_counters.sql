-- CPU utilization and interrupt rates of each host per step, over the step's measured window.
--
-- Where did the load go on the hosts? For each ended step and host: CPU %, interrupts and DPCs per second, as
-- the host's counters report them over the window its STEP_ENDED event declares (ramp-up excluded). The
-- counters behind the CPU and interrupt figures of `scaling_curve_raw`, per host; `ioscale report` sums the
-- hosts' interrupts per step when the Flink job did not analyse the run.
--
-- Parameters:
--   run_id        String        the run (see `ioscale sql run_list`)
--
-- Columns:
--   step_index          step, 0-based
--   host                physical host
--   scope               the counters' scope: hypervisor | host | root_partition (the first one present)
--   samples             CPU samples in the window
--   cpu_pct             CPU utilization over the window, %
--   interrupt_pct       share of CPU time in interrupt handlers, %
--   interrupts_per_s    interrupts per second over the window
--   dpcs_per_s          deferred procedure calls per second over the window (0 where the OS has none)
--
-- Notes:
--   Scope: per host the first present of hypervisor, host, root_partition (cpu = -1 totals), as
--   scaling_curve_raw and the Flink job's StepAnalyzer pick it; figures are interval-weighted means.
--   Steps without STEP_ENDED (still running) are not shown. FINAL: samples arrive at least once.
WITH
    (
        SELECT (groupArray(step_index), groupArray(measured_start), groupArray(measured_end))
        FROM (
            SELECT step_index,
                   assumeNotNull(anyIf(start_ts, event_type = 'step_ended')) AS measured_start,
                   assumeNotNull(anyIf(end_ts, event_type = 'step_ended'))   AS measured_end
            FROM ioscale.run_events FINAL
            WHERE run_id = {run_id:String} AND event_type = 'step_ended'
            GROUP BY step_index
            HAVING countIf(end_ts IS NOT NULL) > 0
        )
    ) AS windows,
    windows.1 AS ended_steps,
    windows.2 AS window_starts,
    windows.3 AS window_ends,
    per_scope AS (
        SELECT
            c.step_index AS step_index, c.host AS host, c.scope AS s_scope,
            indexOf(['hypervisor', 'host', 'root_partition'], c.scope)            AS s_rank,
            count()                                                             AS s_samples,
            sum(greatest(c.interval_ms, 1))                                     AS s_weight,
            sum(c.utilization_pct * greatest(c.interval_ms, 1)) / s_weight      AS s_cpu_pct,
            sum(c.interrupt_pct * greatest(c.interval_ms, 1)) / s_weight        AS s_interrupt_pct,
            sum(c.interrupts_per_s * greatest(c.interval_ms, 1)) / s_weight     AS s_interrupts_per_s,
            sum(c.dpcs_per_s * greatest(c.interval_ms, 1)) / s_weight           AS s_dpcs_per_s
        FROM ioscale.cpu_samples AS c FINAL
        WHERE c.run_id = {run_id:String} AND c.cpu = -1 AND c.scope IN ('hypervisor', 'host', 'root_partition')
          AND has(ended_steps, c.step_index)
          AND c.ts >= transform(c.step_index, ended_steps, window_starts, c.ts)
          AND c.ts < transform(c.step_index, ended_steps, window_ends, c.ts)
        GROUP BY c.step_index, c.host, c.scope
    )
SELECT
    step_index, host,
    argMin(s_scope, s_rank)                            AS scope,
    argMin(s_samples, s_rank)                          AS samples,
    round(argMin(s_cpu_pct, s_rank), 2)                AS cpu_pct,
    round(argMin(s_interrupt_pct, s_rank), 2)          AS interrupt_pct,
    round(argMin(s_interrupts_per_s, s_rank), 1)       AS interrupts_per_s,
    round(argMin(s_dpcs_per_s, s_rank), 1)             AS dpcs_per_s
FROM per_scope
GROUP BY step_index, host
ORDER BY step_index, host
