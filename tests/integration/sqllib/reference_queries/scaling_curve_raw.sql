-- Scaling curve of a run computed from the raw tables: one row per ended step, over its measured window.
--
-- The same figures as `scaling_curve`, without the Flink job: use it when Flink is down, lagging or was not
-- running when the data arrived, and to cross-check the job. Each step is measured over the window its
-- STEP_ENDED event declares (start_ts = end of ramp-up, end_ts = end of the step), as Iometer and DISKSPD
-- report their results; `scaling_curve` uses the steady state the job detected inside that window, so the two
-- can differ by a few percent on a noisy step. Steps without STEP_ENDED (still running) are not shown.
--
-- Parameters:
--   run_id        String                     the run (see `ioscale sql run_list`)
--   load_axis     String = total-outstanding {total-outstanding|vm-count|workers|queue-depth|step}
--                                            the x of the curve, as the Flink job's --load-axis: linear
--                                            scaling means throughput proportional to it
--   metric        String = iops {iops|mb_per_s}  the throughput that gain and efficiency are computed on
--
-- Columns:
--   step_index                  step, 0-based
--   step_label                  the step's label (e.g. '40 VMs/node (160 VMs)')
--   vm_count                    VMs generating I/O (0 = the host itself)
--   targets_per_vm              disks/volumes per VM
--   workers_per_target          workers (threads) per target
--   outstanding_ios_per_target  queue depth per worker and target
--   block_size_bytes            I/O size, bytes
--   read_pct                    share of reads, %
--   load                        the x value along load_axis
--   measured_s                  length of the measured window, seconds
--   iops                        I/Os completed per second, reads + writes, all sources
--   mb_per_s                    payload throughput, 10^6 bytes per second
--   mean_latency_us             exact mean latency (sum / count), microseconds
--   p99_us                      99th percentile latency, microseconds (exact over buckets, within 0.39 %)
--   p99_999_us                  99.999th percentile latency, microseconds; the exact max when too_few
--   max_latency_us              exact largest latency, microseconds
--   latency_n                   I/Os in the merged histogram (N behind the percentiles)
--   p99_999_too_few             true when latency_n < 10^6: p99_999_us is then the max, not a percentile
--   outstanding_ios             measured mean I/Os in flight (sum over sources)
--   littles_ios                 iops x mean latency: equals outstanding_ios in a closed loop (Little's law)
--   cpu_pct                     mean over hosts of host CPU utilization, % (NULL: no CPU samples)
--   cpu_max_pct                 the busiest host's CPU utilization, %
--   gain_pct                    metric vs the previous step, % (NULL on the first step)
--   efficiency_pct              metric vs linear scaling from the first step along load_axis, %
--
-- Notes:
--   Percentiles: the step's sample histograms are merged with sumMap (adding bucket counts is exact), then
--   quantilesExactWeighted runs over (bucket representative, count) -- the same rank rule as
--   ioscale.histogram -- and the answer is clamped to the exact [min, max]. Never quantileTDigest, and never an
--   average of per-VM percentiles (VMFleet's habit, -34 % at p99 on skewed fleets). A level needs
--   N >= ceil(10 / (1 - q)) samples (p99: 1000, p99.999: 10^6); below that the column holds the exact max.
--   FINAL: the raw tables are ReplacingMergeTrees fed at least once by the Kafka engine; without FINAL a
--   replayed sample would count twice until a background merge.
--   CPU: per host the first scope present of hypervisor, host, root_partition (cpu = -1 totals),
--   interval-weighted, as the Flink job's StepAnalyzer does.
--   sumMap over mapFromArrays(index, count), not sumMap(index, count): same sums, but the Map form ran ~4x
--   faster on ClickHouse 26.9 here (one 320-VM step: 60 ms vs 230 ms).
--   join_use_nulls = 1: a step without CPU samples shows cpu_pct NULL, not 0 %.
WITH
    steps AS (
        SELECT
            step_index,
            argMaxIf(step_label, ts, step_label != '')                    AS step_label,
            argMaxIf(vm_count, ts, has_load)                              AS vm_count,
            argMaxIf(targets_per_vm, ts, has_load)                        AS targets_per_vm,
            argMaxIf(workers_per_target, ts, has_load)                    AS workers_per_target,
            argMaxIf(outstanding_ios_per_target, ts, has_load)            AS outstanding_ios_per_target,
            argMaxIf(block_size_bytes, ts, has_load)                      AS block_size_bytes,
            argMaxIf(read_pct, ts, has_load)                              AS read_pct,
            max(has_load)                                                 AS step_has_load,
            assumeNotNull(anyIf(start_ts, event_type = 'step_ended'))     AS measured_start,
            assumeNotNull(anyIf(end_ts, event_type = 'step_ended'))       AS measured_end
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND event_type IN ('step_started', 'step_ended')
        GROUP BY step_index
        HAVING countIf(event_type = 'step_ended' AND end_ts IS NOT NULL) > 0
    ),
    io AS (
        SELECT
            s.step_index                                                  AS step_index,
            sum(s.ops)                                                    AS ops,
            sum(s.bytes)                                                  AS bytes,
            sum(s.latency_count)                                          AS latency_count,
            sum(s.latency_sum_ns)                                         AS latency_sum_ns,
            minIf(s.latency_min_ns, s.latency_count > 0)                  AS latency_min_ns,
            max(s.latency_max_ns)                                         AS latency_max_ns,
            sum(s.outstanding_ios * s.interval_ms)                        AS outstanding_io_ms,
            sumMapIf(mapFromArrays(s.latency_bucket_index, s.latency_bucket_count), s.latency_hist_scheme = 1) AS hist,
            arraySum(mapValues(hist))                                     AS latency_n,
            -- quantilesExactWeighted over (bucket representative, count) of the merged buckets.
            arrayReduce('quantilesExactWeighted(0.99, 0.99999)',
                arrayMap(i -> (bitShiftLeft(toUInt64(modulo(i, 128) + 128 * least(intDiv(i, 128), 1)), toUInt8(greatest(intDiv(i, 128), 1) - 1)) + intDiv(bitShiftLeft(toUInt64(1), toUInt8(greatest(intDiv(i, 128), 1) - 1)), 2)), mapKeys(hist)),
                mapValues(hist))                                          AS q
        FROM ioscale.io_samples AS s FINAL
        INNER JOIN steps AS w ON s.step_index = w.step_index
        WHERE s.run_id = {run_id:String} AND s.ts >= w.measured_start AND s.ts < w.measured_end
        GROUP BY s.step_index
    ),
    cpu_scope AS (
        SELECT
            c.step_index AS step_index, c.host AS host, c.scope AS scope,
            sum(c.utilization_pct * greatest(c.interval_ms, 1)) / sum(greatest(c.interval_ms, 1)) AS utilization_pct
        FROM ioscale.cpu_samples AS c FINAL
        INNER JOIN steps AS w ON c.step_index = w.step_index
        WHERE c.run_id = {run_id:String} AND c.cpu = -1 AND c.scope IN ('hypervisor', 'host', 'root_partition')
          AND c.ts >= w.measured_start AND c.ts < w.measured_end
        GROUP BY c.step_index, c.host, c.scope
    ),
    cpu AS (
        SELECT step_index, avg(host_pct) AS cpu_pct, max(host_pct) AS cpu_max_pct
        FROM (
            SELECT step_index, host,
                   argMin(utilization_pct, indexOf(['hypervisor', 'host', 'root_partition'], scope)) AS host_pct
            FROM cpu_scope
            GROUP BY step_index, host
        )
        GROUP BY step_index
    ),
    points AS (
        SELECT
            w.step_index AS step_index, w.step_label AS step_label, w.vm_count AS vm_count,
            w.targets_per_vm AS targets_per_vm, w.workers_per_target AS workers_per_target,
            w.outstanding_ios_per_target AS outstanding_ios_per_target, w.block_size_bytes AS block_size_bytes,
            w.read_pct AS read_pct,
            -- The Flink job's LoadAxis: a step without a load falls back to its ordinal.
            toFloat64(multiIf(
                NOT w.step_has_load OR {load_axis:String} = 'step', w.step_index + 1,
                {load_axis:String} = 'vm-count', greatest(w.vm_count, 1),
                {load_axis:String} = 'workers', greatest(w.workers_per_target, 1),
                {load_axis:String} = 'queue-depth', greatest(w.outstanding_ios_per_target, 1),
                greatest(w.vm_count, 1) * w.targets_per_vm * w.workers_per_target * w.outstanding_ios_per_target)) AS load,
            (toUnixTimestamp64Milli(w.measured_end) - toUnixTimestamp64Milli(w.measured_start)) / 1000 AS measured_s,
            l.ops / measured_s AS iops,
            l.bytes / 1e6 / measured_s AS mb_per_s,
            if(l.latency_count > 0, l.latency_sum_ns / l.latency_count, NULL) AS mean_latency_ns,
            -- Too few samples: the exact max stands in for the percentile (histogram.required_n); none: NULL.
            multiIf(l.latency_n = 0, NULL, l.latency_n < 1000, l.latency_max_ns, least(greatest(l.q[1], l.latency_min_ns), l.latency_max_ns)) AS p99_ns,
            multiIf(l.latency_n = 0, NULL, l.latency_n < 1000000, l.latency_max_ns, least(greatest(l.q[2], l.latency_min_ns), l.latency_max_ns)) AS p99_999_ns,
            l.latency_max_ns AS max_latency_ns,
            l.latency_n AS latency_n,
            toBool(l.latency_n < 1000000) AS p99_999_too_few,
            l.outstanding_io_ms / 1000 / measured_s AS outstanding_ios,
            c.cpu_pct AS cpu_pct, c.cpu_max_pct AS cpu_max_pct,
            if({metric:String} = 'mb_per_s', mb_per_s, iops) AS x
        FROM steps AS w
        INNER JOIN io AS l ON l.step_index = w.step_index
        LEFT JOIN cpu AS c ON c.step_index = w.step_index
    )
SELECT
    step_index, step_label, vm_count, targets_per_vm, workers_per_target, outstanding_ios_per_target,
    block_size_bytes, round(read_pct, 1) AS read_pct, load, measured_s,
    round(iops, 1) AS iops,
    round(mb_per_s, 2) AS mb_per_s,
    round(mean_latency_ns / 1e3, 3) AS mean_latency_us,
    round(p99_ns / 1e3, 3) AS p99_us,
    round(p99_999_ns / 1e3, 3) AS p99_999_us,
    round(max_latency_ns / 1e3, 3) AS max_latency_us,
    latency_n, p99_999_too_few,
    round(outstanding_ios, 2) AS outstanding_ios,
    round(iops * mean_latency_ns / 1e9, 2) AS littles_ios,
    round(cpu_pct, 2) AS cpu_pct, round(cpu_max_pct, 2) AS cpu_max_pct,
    round((x / lagInFrame(toNullable(x)) OVER (ORDER BY step_index ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - 1) * 100, 2) AS gain_pct,
    round(x / (first_value(x) OVER (ORDER BY step_index) * load / first_value(load) OVER (ORDER BY step_index)) * 100, 2) AS efficiency_pct
FROM points
ORDER BY step_index
SETTINGS join_use_nulls = 1
