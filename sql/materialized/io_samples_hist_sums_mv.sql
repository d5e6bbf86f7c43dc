-- Sums every block inserted into io_samples into io_samples_hist_sums at every grain (see that table's
-- migration). One view and one target table, so a block reaches every grain and every column or none.
-- grouping(direction, host, vm, target, ts): a bit per argument, 1 when the grain does NOT group by it
-- (standard SQL, pinned below), so 0b00001 = source_step, 0b10011 = vm_step, 0b01111 = fleet_step,
-- 0b11110 = step_ts. Keys outside a grain take their defaults ('' and 1970-01-01).
-- A histogram is summed at grain fleet_step only: no query reads one at source_step or vm_step (they read those
-- grains' samples, sample_ts and counters), and sumMap builds an ordered map per group, where a group at those
-- grains is one sample or a VM's few. Each group gathers its samples' buckets packed into one UInt64 each
-- (bucket << 47 | count, as the queries pack them), and only the fleet rows -- a few per block -- sum them; hist
-- is {} at the other grains. The bitmaps outside source_step are computed and dropped: GROUPING SETS take one
-- list of aggregates for every set.
-- A sample with bucket arrays of unequal lengths (arrayMap would raise, and an error here would stall the Kafka
-- consumer), or a bucket count of 2^47 or more (it would spill into the bucket bits), is malformed: no buckets,
-- and out of sample_ts, which sends its source, VM and step to io_samples FINAL in the queries.
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
    -- only the fleet rows pay for the sum (if() evaluates its branches lazily)
    if(grain = 'fleet_step',
       CAST(arrayReduce('sumMap', [arrayMap(p -> toUInt16(bitShiftRight(p, 47)), all_packed)],
                                  [arrayMap(p -> bitAnd(p, 140737488355327), all_packed)]), 'Map(UInt16, UInt64)'),
       map())                                                                                     AS hist,
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
    WITH length(latency_bucket_index) = length(latency_bucket_count)
         AND arrayAll(c -> c < 140737488355328, latency_bucket_count) AS well_formed
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
        groupArrayArray(arrayMap((b, c) -> bitOr(bitShiftLeft(toUInt64(b), 47), c),
                                 if(latency_hist_scheme = 1 AND well_formed, latency_bucket_index, []),
                                 if(latency_hist_scheme = 1 AND well_formed, latency_bucket_count, [])))
                                                                                 AS all_packed,
        max(ingested_at)                                                         AS ingested_at
    FROM ioscale.io_samples
    GROUP BY GROUPING SETS (
        (run_id, step_index, direction, host, vm, target),    -- source_step
        (run_id, step_index, host, vm),                       -- vm_step
        (run_id, step_index, direction),                      -- fleet_step
        (run_id, step_index, ts))                             -- step_ts
)
SETTINGS force_grouping_standard_compatibility = 1, group_by_use_nulls = 0
