-- Scaling curve of a run from the Flink analytics job: load, throughput, latency, CPU, gain, efficiency.
--
-- One row per step, with the job's saturation verdict.
--
-- The question a scalability test asks: as the load grows (VMs, workers, queue depth), how much more work gets
-- done, at what latency, and where does it stop paying? Each step is measured over the steady state the job
-- found inside the step (ramp-up and tail excluded; steady_usable says whether to trust it). When the Flink
-- job is not running, `scaling_curve_raw` computes the same from the raw tables.
--
-- Parameters:
--   run_id        String        the run (see `ioscale sql run_list`)
--
-- Columns:
--   step_index                  step, 0-based
--   step_label                  the step's label
--   vm_count                    VMs generating I/O (0 = the host itself)
--   targets_per_vm              disks/volumes per VM
--   workers_per_target          workers (threads) per target
--   outstanding_ios_per_target  queue depth per worker and target
--   block_size_bytes            I/O size, bytes
--   read_pct                    share of reads, %
--   load                        the x of the curve along load_axis (the job's --load-axis)
--   load_axis                   total-outstanding | vm-count | workers | queue-depth | step
--   steady_s                    seconds of steady state the figures cover
--   steady_usable               false when the job found no trustworthy steady state (see steady_reason)
--   iops                        I/Os completed per second, all sources (PORT basis: frames/s where counted)
--   mb_per_s                    payload throughput, 10^6 bytes/s
--   throughput_basis            IO: the I/O samples | PORT: a run without I/O samples (a network test), measured
--                               by its whole ports' payload; its curve, verdict and USL fit judge mb_per_s
--   mean_latency_us             exact mean latency, microseconds
--   p99_us                      99th percentile of every I/O of the steady state, microseconds (exact over buckets)
--   p99_999_us                  99.999th percentile, microseconds; the exact max when too_few
--                               (both NULL when latency_n = 0: the step's sources sent no histogram)
--   latency_n                   I/Os behind the percentiles
--   p99_999_too_few             latency_n < 10^6: p99_999_us is the max, not a percentile
--   cpu_pct                     mean over hosts of host CPU utilization, %
--   cpu_max_pct                 the busiest host's CPU utilization, %
--   port_max_pct                the busiest port direction's utilization, %
--   port_hottest                that port direction ('host/port RX'; '' without port samples)
--   cpu_hottest_host            the busiest host
--   interrupts_per_s            interrupts per second, summed over the hosts (NULL: no CPU samples)
--   gain_pct                    throughput vs the previous step, %
--   efficiency_pct              throughput vs linear scaling from the first step along load_axis, %
--   latency_growth_pct          mean latency vs the previous step, %
--   littles_consistent          outstanding I/Os = IOPS x mean latency within tolerance (a closed loop)
--   littles_basis               the outstanding I/Os checked: CONFIGURED (the step's load) | REPORTED (the
--                               samples', possibly derived from IOPS x latency by an importer) | '' (unchecked)
--   saturation                  the job's verdict: SCALING | SATURATED | UNDETERMINED
--   bottleneck                  what saturated: PORT | CPU | DEVICE_KNEE (throughput stalled, latency grew) | NONE
--   evidence                    the numbers behind the verdict, as text
--   steady_reason               how the steady window was chosen
--
-- Notes:
--   FINAL: the job writes at least once and re-emits a step row as late data arrives; ReplacingMergeTree keeps
--   the largest version (samples merged) per (run, step), but only after a merge -- FINAL applies it at read.
--   Percentiles were computed by the job from the merged histogram of every I/O (LatencyHistogram.java, the
--   same scheme and rank rule as ioscale.histogram); N is shown because p99.999 needs N >= 10^6.
SELECT
    step_index, step_label, vm_count, targets_per_vm, workers_per_target, outstanding_ios_per_target,
    block_size_bytes,
    round(read_pct, 1)                      AS read_pct,
    load, load_axis,
    steady_seconds                          AS steady_s,
    steady_usable,
    round(iops, 1)                          AS iops,
    round(mb_per_s, 2)                      AS mb_per_s,
    throughput_basis,
    round(latency_mean_ns / 1e3, 3)         AS mean_latency_us,
    round(p99_ns / 1e3, 3)                  AS p99_us,
    round(p99_999_ns / 1e3, 3)              AS p99_999_us,
    latency_n,
    p99_999_too_few,
    round(cpu_utilization_pct, 2)           AS cpu_pct,
    round(cpu_max_utilization_pct, 2)       AS cpu_max_pct,
    round(port_max_utilization_pct, 2)      AS port_max_pct,
    port_hottest,
    cpu_hottest_host,
    round(interrupts_per_s, 1)              AS interrupts_per_s,
    round(throughput_gain_pct, 2)           AS gain_pct,
    round(scaling_efficiency_pct, 2)        AS efficiency_pct,
    round(latency_growth_pct, 2)            AS latency_growth_pct,
    littles_consistent,
    littles_basis,
    saturation_status                       AS saturation,
    saturation_bottleneck                   AS bottleneck,
    saturation_evidence                     AS evidence,
    steady_reason
FROM ioscale.scaling_curves FINAL
WHERE run_id = {run_id:String}
ORDER BY step_index
