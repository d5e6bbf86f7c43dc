-- Raw port samples: FC HBA ports, NIC ports and NIC VM queues (queue = -1: whole port).
CREATE TABLE IF NOT EXISTS ioscale.port_samples
(
    ts              DateTime64(3, 'UTC')   CODEC(DoubleDelta, ZSTD(1)),
    interval_ms     UInt32                 CODEC(T64, ZSTD(1)),
    run_id          LowCardinality(String),
    step_index      Int32                  CODEC(T64, ZSTD(1)),
    host            LowCardinality(String),
    port_id         LowCardinality(String),
    kind            LowCardinality(String),   -- fc_hba | nic | nic_vmq | sas | other
    queue           Int32,
    vm              LowCardinality(String),
    link_speed_bps  UInt64,
    rx_bytes        UInt64                 CODEC(T64, ZSTD(1)),
    tx_bytes        UInt64                 CODEC(T64, ZSTD(1)),
    rx_frames       UInt64                 CODEC(T64, ZSTD(1)),
    tx_frames       UInt64                 CODEC(T64, ZSTD(1)),
    rx_errors       UInt64                 CODEC(T64, ZSTD(1)),
    tx_errors       UInt64                 CODEC(T64, ZSTD(1)),
    interrupts      UInt64                 CODEC(T64, ZSTD(1)),
    tags            Map(LowCardinality(String), String),
    ingested_at     DateTime64(3, 'UTC')   DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (run_id, step_index, host, port_id, queue, ts)
TTL toDateTime(ingested_at) + INTERVAL 400 DAY  -- by arrival, as io_samples (0010)
