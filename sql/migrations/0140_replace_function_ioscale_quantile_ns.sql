-- Quantile q (ns) of a histogram of n samples by the rule of 0035, except an empty histogram (n = 0): NULL. No
-- percentile exists there (a source that sends no buckets, such as Iometer), and the max that 0035 gives reads
-- as one. A view stores the function written out: a view created before this keeps 0035's rule until replaced.
CREATE OR REPLACE FUNCTION ioscaleQuantileNs AS (q, raw_ns, n, min_ns, max_ns) ->
    multiIf(n = 0, NULL, n < ioscaleRequiredN(q) OR q = 1, max_ns, q = 0, min_ns,
            least(greatest(raw_ns, min_ns), max_ns))
