-- Port samples with one row per direction and the link's usable payload rate (Superset dataset port_traffic).
-- Capacity, as the Flink job (LinkCapacityRule.java) and sql/queries/port_utilization.sql: the run's declared
-- payload rate, else its line rate, else the sample's link_speed_bps, through FC class x 100 MB/s (8.5 Gbps
-- = 8GFC = 800 MB/s) | NIC bps / 8 x 1460 / 1538 | SAS bps / 10 | other bps / 8. Half-duplex links count
-- both directions against one capacity (link_bytes). An undeclared port joins as zeros (plain LEFT JOIN
-- defaults), which selects the sample's own link speed.
CREATE OR REPLACE VIEW ioscale.dash_port_traffic AS
WITH links AS (
    SELECT run_id, link.host AS host, link.port_id AS port_id,
           argMax(link.kind, ts) AS link_kind, argMax(link.speed_bps, ts) AS link_speed_bps,
           argMax(link.payload_bytes_per_s, ts) AS link_payload_bytes_per_s,
           argMax(link.full_duplex, ts) AS link_full_duplex
    FROM ioscale.run_events FINAL
    ARRAY JOIN links AS link
    GROUP BY run_id, host, port_id
)
SELECT p.ts AS ts, p.interval_ms AS interval_ms, p.run_id AS run_id, p.step_index AS step_index, p.host AS host,
       p.port_id AS port_id, concat(p.host, ' ', p.port_id) AS port, p.kind AS kind, p.queue AS queue, p.vm AS vm,
       direction,
       if(direction = 'rx', p.rx_bytes, p.tx_bytes) AS bytes,
       if(full_duplex, bytes, p.rx_bytes + p.tx_bytes) AS link_bytes,
       if(direction = 'rx', p.rx_errors, p.tx_errors) AS errors,
       p.interrupts AS interrupts,
       l.link_payload_bytes_per_s > 0 OR l.link_speed_bps > 0 AS from_run,
       toUInt64(if(from_run, l.link_speed_bps, p.link_speed_bps)) AS speed_bps,
       if(from_run, l.link_full_duplex, true) AS full_duplex,
       multiIf(from_run AND l.link_payload_bytes_per_s > 0, toFloat64(l.link_payload_bytes_per_s),
               speed_bps = 0, NULL,
               if(from_run, l.link_kind, p.kind) = 'fc_hba',
                   pow(2, least(7, greatest(0, ceil(log2(speed_bps / 1e9) - 0.5)))) * 100e6,
               if(from_run, l.link_kind, p.kind) IN ('nic', 'nic_vmq'), speed_bps / 8 * 1460 / 1538,
               if(from_run, l.link_kind, p.kind) = 'sas', speed_bps / 10,
               speed_bps / 8) AS capacity_bytes_per_s
FROM ioscale.port_samples AS p FINAL
LEFT JOIN links AS l ON l.run_id = p.run_id AND l.host = p.host AND l.port_id = p.port_id
ARRAY JOIN ['rx', 'tx'] AS direction
