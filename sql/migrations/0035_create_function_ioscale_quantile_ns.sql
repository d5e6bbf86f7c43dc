-- Quantile q (ns) of a histogram of n samples with exact min and max, from raw_ns, the representative of the
-- bucket holding rank ceil(q * n) (quantileExactWeighted over ioscaleBucketValueNs): clamped to [min, max];
-- the exact max when n < ioscaleRequiredN(q) (too few samples) or q = 1, the exact min at q = 0
-- (histogram.LatencyHistogram.quantiles).
CREATE FUNCTION IF NOT EXISTS ioscaleQuantileNs AS (q, raw_ns, n, min_ns, max_ns) ->
    multiIf(n < ioscaleRequiredN(q) OR q = 1, max_ns, q = 0, min_ns, least(greatest(raw_ns, min_ns), max_ns))
