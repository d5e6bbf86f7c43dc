-- Run and step events (start/end, swept load, topology, link capacities). The step's load is
-- flattened into columns so scaling-curve queries can use it as the x axis directly.
CREATE TABLE IF NOT EXISTS ioscale.run_events
(
    ts                          DateTime64(3, 'UTC'),
    event_type                  LowCardinality(String),   -- run_started | step_started | step_ended | run_ended
    run_id                      LowCardinality(String),
    scenario                    LowCardinality(String),
    tool                        LowCardinality(String),
    description                 String,
    step_index                  Int32,
    step_label                  String,
    has_load                    Bool,
    vm_count                    Int32,
    targets_per_vm              Int32,
    workers_per_target          Int32,
    outstanding_ios_per_target  Int32,
    block_size_bytes            Int32,
    read_pct                    Float64,
    random_pct                  Float64,
    adapter                     LowCardinality(String),
    config_labels               Map(LowCardinality(String), String),
    hosts                       Array(Tuple(host String, hypervisor String, sockets Int32, cores Int32,
                                            logical_processors Int32, memory_bytes Int64)),
    links                       Array(Tuple(host String, port_id String, kind String, speed_bps Int64,
                                            payload_bytes_per_s Int64, full_duplex Bool)),
    start_ts                    Nullable(DateTime64(3, 'UTC')),
    end_ts                      Nullable(DateTime64(3, 'UTC')),
    tags                        Map(LowCardinality(String), String),
    ingested_at                 DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY (run_id, step_index, event_type, ts)
