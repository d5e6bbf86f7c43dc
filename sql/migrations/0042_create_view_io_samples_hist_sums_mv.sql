-- Sums every block inserted into io_samples into io_samples_hist_sums at every grain (see 0040). One view
-- and one target table, so a block reaches every grain and every column or none. GROUPING SETS build each
-- sample's histogram Map once and aggregate it into every grain (an arrayJoin over the grains would copy the
-- row and its bucket arrays four times, at nearly twice the CPU per row). The step_ts grain's histogram and the
-- bitmaps outside source_step are computed and dropped: GROUPING SETS take one list of aggregates for every
-- set, and this is still the cheaper form. The counters and min/max cost nothing measurable next to the
-- histogram Map.
-- grouping(direction, host, vm, target, ts): a bit per argument, 1 when the grain does NOT group by it
-- (standard SQL, pinned below), so 0b00001 = source_step, 0b10011 = vm_step, 0b01111 = fleet_step,
-- 0b11110 = step_ts. Keys outside a grain take their defaults ('' and 1970-01-01).
-- Bucket arrays of unequal lengths add an empty Map (mapFromArrays would raise, and an error here would stall
-- the Kafka consumer) and stay out of sample_ts, which sends that source to io_samples FINAL in the queries.
-- Aliases sum_* inside: an alias named like a column (ops, interval_ms) would shadow that column in the other
-- aggregates.
CREATE MATERIALIZED VIEW IF NOT EXISTS ioscale.io_samples_hist_sums_mv TO ioscale.io_samples_hist_sums AS
SELECT
    run_id,
    step_index,
    multiIf(g = 0b00001, 'source_step', g = 0b10011, 'vm_step', g = 0b01111, 'fleet_step', 'step_ts') AS grain,
    direction,
    ts,
    host,
    vm,
    target,
    samples,
    if(grain = 'source_step', all_sample_ts, arrayReduce('groupBitmapState', emptyArrayUInt32())) AS sample_ts,
    if(grain = 'step_ts', map(), all_hist)                                                        AS hist,
    samples                                                                                       AS counted_samples,
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
    WITH length(latency_bucket_index) = length(latency_bucket_count) AS well_formed
    SELECT
        run_id, step_index, direction, host, vm, target, ts,
        grouping(direction, host, vm, target, ts)                                AS g,
        count()                                                                  AS samples,
        sum(ops)                                                                 AS sum_ops,
        sum(bytes)                                                               AS sum_bytes,
        sum(latency_count)                                                       AS sum_latency_count,
        sum(latency_sum_ns)                                                      AS sum_latency_sum_ns,
        sum(interval_ms)                                                         AS sum_interval_ms,
        sum(outstanding_ios * interval_ms)                                       AS sum_outstanding_io_ms,
        min(if(latency_count > 0, latency_min_ns, 18446744073709551615))        AS min_latency_min_ns,
        max(latency_max_ns)                                                      AS max_latency_max_ns,
        groupBitmapStateIf(toUInt32(bitAnd(toUnixTimestamp64Milli(ts), 4294967295)), well_formed)
                                                                                 AS all_sample_ts,
        sumMap(mapFromArrays(if(latency_hist_scheme = 1 AND well_formed, latency_bucket_index, []),
                             if(latency_hist_scheme = 1 AND well_formed, latency_bucket_count, [])))
                                                                                 AS all_hist,
        max(ingested_at)                                                         AS ingested_at
    FROM ioscale.io_samples
    GROUP BY GROUPING SETS (
        (run_id, step_index, direction, host, vm, target),    -- source_step
        (run_id, step_index, host, vm),                       -- vm_step
        (run_id, step_index, direction),                      -- fleet_step
        (run_id, step_index, ts))                             -- step_ts
)
SETTINGS force_grouping_standard_compatibility = 1, group_by_use_nulls = 0
