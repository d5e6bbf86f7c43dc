-- Utilization of each HBA / NIC port per direction and step, against the link's usable payload rate.
--
-- Is the wire the bottleneck? For every port (and, on request, every NIC VM queue) the mean and the busiest
-- second of each direction over the step's window, as a share of what the link can carry after encoding and
-- framing overhead -- not of its raw line rate, which no link ever reaches.
--
-- Parameters:
--   run_id          String               the run (see `ioscale sql run_list`)
--   step_index      Int32 = -1           step, 0-based; -1 = every step
--   include_queues  Bool = false         also list NIC VM queues (queue >= 0), each against its port's capacity
--
-- Columns:
--   step_index            step, 0-based
--   host                  physical host
--   port_id               port name (as in port_samples / the run's links)
--   kind                  fc_hba | nic | nic_vmq | sas | other
--   queue                 -1 = the whole port, >= 0 = a NIC VM queue
--   vm                    the VM a queue serves ('' for whole ports)
--   direction             rx | tx (as the host sees it: reads arrive on rx for FC)
--   mb_per_s              this direction's mean traffic over the window, 10^6 bytes/s
--   peak_mb_per_s         the busiest sample interval, 10^6 bytes/s
--   capacity_mb_per_s     usable payload per direction, 10^6 bytes/s (NULL = unknown)
--   utilization_pct       mean load / capacity, % (half duplex: rx + tx against the shared capacity)
--   peak_utilization_pct  the busiest interval's load / capacity, %
--   link_speed_gbps       line rate, 10^9 bits/s
--   full_duplex           whether each direction has the full capacity
--   capacity_source       run_event (the run's declared links) | link_speed (the samples' link_speed_bps) | unknown
--   errors                frame errors in this direction over the window
--
-- Notes:
--   Capacity, the same precedence and rule as the Flink job (LinkCapacityRule.java) and the simulator:
--   1. the run's LinkCapacity.payload_bytes_per_s when > 0; 2. else the run's speed_bps, 3. else the sample's
--   link_speed_bps, through the rule
--     fc_hba       nominal class x 100 MB/s: class = the power of two (1..128 Gbps) nearest to the line rate on a
--                  log scale -- 8.5 Gbps is 8GFC = 800 MB/s (8b/10b on 1.0625 x class Gbaud; 16GFC and up use
--                  64b/66b at a higher baud, still 100 MB/s per class); ties go to the smaller class, as in Java
--     nic, nic_vmq speed / 8 x 1460 / 1538 (TCP/IPv4 payload of a full 1500-byte frame: 1460 of 1538 bytes on
--                  the wire with preamble, headers, FCS and gap)
--     sas          speed / 10 (8b/10b)
--     other        speed / 8
--   Half-duplex links (the run's full_duplex = false) carry both directions on one capacity, so both rows show
--   (rx + tx) / capacity -- as the Flink job does. A queue's capacity is its port's: its share of the port.
--   Window: the step's measured window (STEP_ENDED start..end), or the whole step when it has not ended.
--   FINAL: the Kafka engine delivers at least once; FINAL collapses replayed samples.
--   join_use_nulls = 1: a step without STEP_ENDED gets NULL window bounds (read as: the whole step), and a
--   port the run did not declare gets NULL link columns (so the samples' speed applies), not zeros.
WITH
    steps AS (
        SELECT
            step_index,
            anyIf(start_ts, event_type = 'step_ended')   AS measured_start,
            anyIf(end_ts, event_type = 'step_ended')     AS measured_end
        FROM ioscale.run_events FINAL
        WHERE run_id = {run_id:String} AND event_type = 'step_ended'
        GROUP BY step_index
    ),
    links AS (
        -- The run's declared links (RUN_STARTED / STEP_STARTED); the latest declaration wins.
        SELECT
            link.host                               AS host,
            link.port_id                            AS port_id,
            argMax(link.kind, ts)                   AS link_kind,
            argMax(link.speed_bps, ts)              AS link_speed_bps,
            argMax(link.payload_bytes_per_s, ts)    AS link_payload_bytes_per_s,
            argMax(link.full_duplex, ts)            AS link_full_duplex
        FROM ioscale.run_events FINAL
        ARRAY JOIN links AS link
        WHERE run_id = {run_id:String}
        GROUP BY host, port_id
    ),
    ports AS (
        SELECT
            p.step_index                                                        AS step_index,
            p.host                                                              AS host,
            p.port_id                                                           AS port_id,
            p.queue                                                             AS queue,
            any(p.kind)                                                         AS kind,
            any(p.vm)                                                           AS vm,
            sum(p.rx_bytes)                                                     AS rx_bytes,
            sum(p.tx_bytes)                                                     AS tx_bytes,
            sum(p.rx_errors)                                                    AS rx_errors,
            sum(p.tx_errors)                                                    AS tx_errors,
            sum(greatest(p.interval_ms, 1)) / 1000                              AS seconds,
            max(p.rx_bytes * 1000 / greatest(p.interval_ms, 1))                 AS peak_rx_bytes_per_s,
            max(p.tx_bytes * 1000 / greatest(p.interval_ms, 1))                 AS peak_tx_bytes_per_s,
            max((p.rx_bytes + p.tx_bytes) * 1000 / greatest(p.interval_ms, 1))  AS peak_both_bytes_per_s,
            max(p.link_speed_bps)                                               AS sample_speed_bps
        FROM ioscale.port_samples AS p FINAL
        LEFT JOIN steps AS w ON w.step_index = p.step_index
        WHERE p.run_id = {run_id:String}
          AND ({step_index:Int32} < 0 OR p.step_index = {step_index:Int32})
          AND (p.queue = -1 OR {include_queues:Bool})
          AND (w.measured_end IS NULL OR (p.ts >= w.measured_start AND p.ts < w.measured_end))
        GROUP BY p.step_index, p.host, p.port_id, p.queue
    ),
    rated AS (
        SELECT
            ports.*,
            links.link_speed_bps IS NOT NULL AND (links.link_payload_bytes_per_s > 0 OR links.link_speed_bps > 0) AS from_run,
            if(from_run, links.link_speed_bps, sample_speed_bps) AS speed_bps,
            if(from_run, links.link_kind, kind)                  AS rule_kind,
            multiIf(
                from_run AND links.link_payload_bytes_per_s > 0, toFloat64(links.link_payload_bytes_per_s),
                speed_bps <= 0, NULL,
                rule_kind = 'fc_hba', pow(2, least(7, greatest(0, ceil(log2(speed_bps / 1e9) - 0.5)))) * 100e6,
                rule_kind IN ('nic', 'nic_vmq'), speed_bps / 8 * 1460 / 1538,
                rule_kind = 'sas', speed_bps / 10,
                speed_bps / 8)                                   AS capacity_bytes_per_s,
            multiIf(from_run, 'run_event', sample_speed_bps > 0, 'link_speed', 'unknown') AS capacity_source,
            if(from_run, links.link_full_duplex, true)           AS full_duplex
        FROM ports
        LEFT JOIN links ON links.host = ports.host AND links.port_id = ports.port_id
    )
SELECT
    step_index, host, port_id, kind, queue, vm, direction,
    round(if(direction = 'rx', rx_bytes, tx_bytes) / seconds / 1e6, 2)                        AS mb_per_s,
    round(if(direction = 'rx', peak_rx_bytes_per_s, peak_tx_bytes_per_s) / 1e6, 2)            AS peak_mb_per_s,
    round(capacity_bytes_per_s / 1e6, 1)                                                      AS capacity_mb_per_s,
    round(if(full_duplex, if(direction = 'rx', rx_bytes, tx_bytes), rx_bytes + tx_bytes)
          / seconds / capacity_bytes_per_s * 100, 2)                                          AS utilization_pct,
    round(if(full_duplex, if(direction = 'rx', peak_rx_bytes_per_s, peak_tx_bytes_per_s), peak_both_bytes_per_s)
          / capacity_bytes_per_s * 100, 2)                                                    AS peak_utilization_pct,
    round(speed_bps / 1e9, 3)                                                                 AS link_speed_gbps,
    full_duplex, capacity_source,
    if(direction = 'rx', rx_errors, tx_errors)                                                AS errors
FROM rated
ARRAY JOIN ['rx', 'tx'] AS direction
ORDER BY step_index, host, port_id, queue, direction
SETTINGS join_use_nulls = 1
