-- The counters and extremes of 0130 for what io_samples held before 0131, at every grain as the view computes
-- them. The rows add nothing to samples, sample_ts or hist (0044 summed those); counted_samples says how many
-- samples they cover. FINAL: each sample once, as 0044. A block inserted while this runs can be counted by
-- the view and here: counted_samples then exceeds samples and the queries read that key from io_samples
-- FINAL (exact, only slower). Reads no bucket arrays: ~0.5 s CPU per million samples (io_samples held 21 M).
INSERT INTO ioscale.io_samples_hist_sums
SELECT
    run_id,
    step_index,
    multiIf(g = 0b00001, 'source_step', g = 0b10011, 'vm_step', g = 0b01111, 'fleet_step', 'step_ts') AS grain,
    direction,
    ts,
    host,
    vm,
    target,
    toUInt64(0)                                                                                   AS samples,
    arrayReduce('groupBitmapState', emptyArrayUInt32())                                           AS sample_ts,
    map()                                                                                         AS hist,
    sample_count                                                                                  AS counted_samples,
    sum_ops                                                                                       AS ops,
    sum_bytes                                                                                     AS bytes,
    sum_latency_count                                                                             AS latency_count,
    sum_latency_sum_ns                                                                            AS latency_sum_ns,
    sum_interval_ms                                                                               AS interval_ms_total,
    sum_outstanding_io_ms                                                                         AS outstanding_io_ms,
    min_latency_min_ns                                                                            AS latency_min_ns,
    max_latency_max_ns                                                                            AS latency_max_ns,
    ingested_at
FROM
(
    SELECT
        run_id, step_index, direction, host, vm, target, ts,
        grouping(direction, host, vm, target, ts)                                AS g,
        count()                                                                  AS sample_count,
        sum(ops)                                                                 AS sum_ops,
        sum(bytes)                                                               AS sum_bytes,
        sum(latency_count)                                                       AS sum_latency_count,
        sum(latency_sum_ns)                                                      AS sum_latency_sum_ns,
        sum(interval_ms)                                                         AS sum_interval_ms,
        sum(outstanding_ios * interval_ms)                                       AS sum_outstanding_io_ms,
        min(if(latency_count > 0, latency_min_ns, 18446744073709551615))        AS min_latency_min_ns,
        max(latency_max_ns)                                                      AS max_latency_max_ns,
        max(ingested_at)                                                         AS ingested_at
    FROM ioscale.io_samples FINAL
    GROUP BY GROUPING SETS (
        (run_id, step_index, direction, host, vm, target),    -- source_step
        (run_id, step_index, host, vm),                       -- vm_step
        (run_id, step_index, direction),                      -- fleet_step
        (run_id, step_index, ts))                             -- step_ts
)
SETTINGS force_grouping_standard_compatibility = 1, group_by_use_nulls = 0
