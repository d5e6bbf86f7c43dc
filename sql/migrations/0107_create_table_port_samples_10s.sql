-- Port traffic per (run, step, host, port, queue) over 10 s event-time windows, with utilization per
-- direction against the usable payload rate (capacity_bytes_per_s). Capacity, in order: the run's
-- LinkCapacity.payload_bytes_per_s; else its speed_bps, else the sample's link_speed_bps, through the rule
-- FC: nominal Gbps class x 100 MB/s (8GFC = 800 MB/s); NIC/VMQ: bps / 8 x 1460/1538; SAS: bps / 10 (8b/10b);
-- other: bps / 8 (LinkCapacityRule.java). capacity_source says which; NULL utilization = capacity unknown.
-- Half-duplex links: both directions show (rx + tx) / capacity. queue = -1: the whole port.
-- Rules of the result tables: see 0100.
CREATE TABLE IF NOT EXISTS ioscale.port_samples_10s
(
    window_start          DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    window_end            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    run_id                LowCardinality(String),
    step_index            Int32                   CODEC(T64, ZSTD(1)),
    host                  LowCardinality(String),
    port_id               LowCardinality(String),
    queue                 Int32                   CODEC(T64, ZSTD(1)),
    kind                  LowCardinality(String),
    vm                    LowCardinality(String),
    samples               UInt32                  CODEC(T64, ZSTD(1)),
    rx_bytes              UInt64                  CODEC(T64, ZSTD(1)),
    tx_bytes              UInt64                  CODEC(T64, ZSTD(1)),
    rx_frames             UInt64                  CODEC(T64, ZSTD(1)),
    tx_frames             UInt64                  CODEC(T64, ZSTD(1)),
    rx_errors             UInt64                  CODEC(T64, ZSTD(1)),
    tx_errors             UInt64                  CODEC(T64, ZSTD(1)),
    interrupts            UInt64                  CODEC(T64, ZSTD(1)),
    rx_mb_per_s           Float64                 CODEC(Gorilla, ZSTD(1)),
    tx_mb_per_s           Float64                 CODEC(Gorilla, ZSTD(1)),
    interrupts_per_s      Float64                 CODEC(Gorilla, ZSTD(1)),
    link_speed_bps        UInt64                  CODEC(T64, ZSTD(1)),
    full_duplex           Bool,
    capacity_bytes_per_s  Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    capacity_source       LowCardinality(String),
    rx_utilization_pct    Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    tx_utilization_pct    Nullable(Float64)       CODEC(Gorilla, ZSTD(1)),
    version               UInt64                  CODEC(T64, ZSTD(1)),
    emitted_at            DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1))
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(window_start)
PRIMARY KEY (run_id, step_index, window_start)
ORDER BY (run_id, step_index, window_start, host, port_id, queue)
TTL toDateTime(emitted_at) + INTERVAL 400 DAY
