-- Raw CPU/interrupt samples; cpu = -1 is the total over the scope's logical processors.
CREATE TABLE IF NOT EXISTS ioscale.cpu_samples
(
    ts                  DateTime64(3, 'UTC')   CODEC(DoubleDelta, ZSTD(1)),
    interval_ms         UInt32                 CODEC(T64, ZSTD(1)),
    run_id              LowCardinality(String),
    step_index          Int32                  CODEC(T64, ZSTD(1)),
    host                LowCardinality(String),
    vm                  LowCardinality(String),
    scope               LowCardinality(String),   -- host | root_partition | hypervisor | vm | guest
    cpu                 Int16,
    logical_processors  UInt16,
    utilization_pct     Float32                CODEC(Gorilla, ZSTD(1)),
    user_pct            Float32                CODEC(Gorilla, ZSTD(1)),
    privileged_pct      Float32                CODEC(Gorilla, ZSTD(1)),
    dpc_pct             Float32                CODEC(Gorilla, ZSTD(1)),
    interrupt_pct       Float32                CODEC(Gorilla, ZSTD(1)),
    iowait_pct          Float32                CODEC(Gorilla, ZSTD(1)),
    interrupts_per_s    Float64                CODEC(Gorilla, ZSTD(1)),
    dpcs_per_s          Float64                CODEC(Gorilla, ZSTD(1)),
    tags                Map(LowCardinality(String), String),
    ingested_at         DateTime64(3, 'UTC')   DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (run_id, step_index, host, scope, vm, cpu, ts)
TTL toDateTime(ingested_at) + INTERVAL 400 DAY  -- by arrival, as io_samples (0010)
