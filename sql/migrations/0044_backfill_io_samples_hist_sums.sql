-- Sums what io_samples held before io_samples_hist_sums_mv (0042) existed, as the view sums new blocks.
-- FINAL: io_samples may still hold unmerged redeliveries, and these sums must count each sample once. Runs
-- after the view is created, so no block is missed; a block inserted while this runs can be summed twice,
-- which sample_ts shows and the queries route to io_samples (see 0040) -- exact, only slower for that source.
INSERT INTO ioscale.io_samples_hist_sums
SELECT
    run_id,
    step_index,
    grain,
    key_direction                                                            AS direction,
    key_ts                                                                   AS ts,
    key_host                                                                 AS host,
    key_vm                                                                   AS vm,
    key_target                                                               AS target,
    count()                                                                  AS samples,
    groupBitmapStateIf(ts_ms_mod32, grain = 'source_step' AND well_formed)  AS sample_ts,
    sumMap(row_hist)                                                         AS hist,
    max(ingested_at)                                                         AS ingested_at
FROM
(
    SELECT
        run_id, step_index, ingested_at,
        arrayJoin(['source_step', 'vm_step', 'fleet_step', 'step_ts'])        AS grain,
        if(grain IN ('source_step', 'fleet_step'), direction, '')            AS key_direction,
        if(grain = 'step_ts', ts, toDateTime64(0, 3, 'UTC'))                 AS key_ts,
        if(grain IN ('source_step', 'vm_step'), host, '')                    AS key_host,
        if(grain IN ('source_step', 'vm_step'), vm, '')                      AS key_vm,
        if(grain = 'source_step', target, '')                                AS key_target,
        toUInt32(bitAnd(toUnixTimestamp64Milli(ts), 4294967295))             AS ts_ms_mod32,
        length(latency_bucket_index) = length(latency_bucket_count)          AS well_formed,
        latency_hist_scheme = 1 AND well_formed AND grain != 'step_ts'       AS use_buckets,
        mapFromArrays(if(use_buckets, latency_bucket_index, []),
                      if(use_buckets, latency_bucket_count, []))             AS row_hist
    FROM ioscale.io_samples FINAL
)
GROUP BY run_id, step_index, grain, key_direction, key_ts, key_host, key_vm, key_target
