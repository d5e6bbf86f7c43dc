-- Representative value (ns) of bucket `index`, its midpoint lower + width // 2, within 1/256 of every value in
-- the bucket (histogram.bucket_representative_ns). Quantiles over buckets are taken over (this, count), e.g.
-- quantilesExactWeighted, whose rank rule is ioscale.histogram's.
CREATE FUNCTION IF NOT EXISTS ioscaleBucketValueNs AS (index) ->
    ioscaleBucketLowerNs(index) + intDiv(ioscaleBucketWidthNs(index), 2)
