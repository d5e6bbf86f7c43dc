-- The samples' additive counters and latency extremes next to the histograms, at every grain (issue 4). The
-- SQL library's queries need them per step window; they read them from io_samples FINAL over the whole run
-- (~100 ms CPU of lagging_vms over all steps on a 320-VM, one-hour run, most of scaling_curve_raw). Summed by
-- io_samples_hist_sums_mv (0131, same insert as the histograms), backfilled once (0132):
--
--   column              what                                                   a window's value
--   counted_samples     samples added to the columns below                     (a check, see below)
--   ops, bytes          sums                                                   step sum - outside samples
--   latency_count       sum                                                    ditto
--   latency_sum_ns      sum                                                    ditto
--   interval_ms_total   sum of interval_ms                                     ditto
--   outstanding_io_ms   sum of outstanding_ios x interval_ms (Float64)          ditto
--   latency_min_ns      least latency_min_ns of the samples that counted I/Os  see below
--                       (18446744073709551615 when none did)
--   latency_max_ns      greatest latency_max_ns                                see below
--
-- At grain step_ts the row is one sample time of the step, so a step window's fleet figures are these columns
-- over the step_ts rows inside it -- min and max included, exactly (scaling_curve_raw, step_latency_five_nines).
-- The other grains carry them too, for whole steps; a per-VM window would need the samples outside it
-- subtracted and its min/max found again: tried in session 6 with a time-ordered per-sample copy and each
-- source's most extreme samples, exact but slower than lagging_vms' scan of io_samples FINAL (see its notes).
-- Redelivery: a sample added twice counts twice, as in hist; samples != bitmapCardinality(sample_ts) sends
-- that source to io_samples FINAL already (0040). counted_samples != samples means these columns miss samples
-- (rows summed before 0131) or hold some twice (a block that arrived while 0132 ran): the queries read that
-- key from io_samples FINAL too, exact either way.
ALTER TABLE ioscale.io_samples_hist_sums
    ADD COLUMN IF NOT EXISTS counted_samples   SimpleAggregateFunction(sum, UInt64) AFTER hist,
    ADD COLUMN IF NOT EXISTS ops               SimpleAggregateFunction(sum, UInt64) AFTER counted_samples,
    ADD COLUMN IF NOT EXISTS bytes             SimpleAggregateFunction(sum, UInt64) AFTER ops,
    ADD COLUMN IF NOT EXISTS latency_count     SimpleAggregateFunction(sum, UInt64) AFTER bytes,
    ADD COLUMN IF NOT EXISTS latency_sum_ns    SimpleAggregateFunction(sum, UInt64) AFTER latency_count,
    ADD COLUMN IF NOT EXISTS interval_ms_total SimpleAggregateFunction(sum, UInt64) AFTER latency_sum_ns,
    ADD COLUMN IF NOT EXISTS outstanding_io_ms SimpleAggregateFunction(sum, Float64) AFTER interval_ms_total,
    ADD COLUMN IF NOT EXISTS latency_min_ns    SimpleAggregateFunction(min, UInt64) DEFAULT 18446744073709551615
        AFTER outstanding_io_ms,
    ADD COLUMN IF NOT EXISTS latency_max_ns    SimpleAggregateFunction(max, UInt64) AFTER latency_min_ns
