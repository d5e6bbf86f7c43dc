-- io_samples_hist_sums keeps few parts: the SQL library reads it up to five times per query without FINAL, and
-- each of its parts costs every read. Against the 320-VM bench hour, the table in 16 parts vs in one, alternating,
-- 10 calls each (ClickHouse CPU per call, p50): step_latency_five_nines 279 vs 159 ms, scaling_curve_raw 357 vs
-- 252, lagging_vms over all steps 442 vs 382.
-- - merge_selector_base 5 (ClickHouse's default) instead of the server-wide 20 of config.xml: during a run its
--   small parts merge early; its rows collapse when merged (one per key), so merging it often stays cheap. At 20,
--   the bench run's ingest left 16 parts of ~1,000 rows (7x the largest in all: too few for a merge).
-- - Once nothing has arrived for 60 s (every part older than that; the table has one partition), it is merged
--   into one part: the run just ended is read at its cheapest. At 5 alone, 5 parts stayed (a tail of small parts
--   under 5x the largest).
ALTER TABLE ioscale.io_samples_hist_sums
    MODIFY SETTING merge_selector_base = 5, min_age_to_force_merge_seconds = 60,
                   min_age_to_force_merge_on_partition_only = 1
