-- io_fleet_1s: p50_ns .. p99_999_ns NULL where latency_n = 0 (see the fragment). The type change and the update
-- rewrite those columns of every part, once.
ALTER TABLE ioscale.io_fleet_1s
{{nullable_quantiles}}
