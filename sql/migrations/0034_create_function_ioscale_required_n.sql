-- Samples a quantile level q needs before it is reported rather than the max (histogram.required_n): a tail
-- quantile means something with ~10 samples beyond it, so ceil(10 / (1 - q)); the 1e-9 shave absorbs the
-- rounding of 1 - q (p90 needs 100, not 101); q = 0 and q = 1 (min and max, exact) need 1.
CREATE FUNCTION IF NOT EXISTS ioscaleRequiredN AS (q) ->
    if(q = 0 OR q = 1, toUInt64(1), toUInt64(ceil(10 / (1 - q) * (1 - 1e-9))))
