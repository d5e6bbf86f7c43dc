-- Smallest value (ns) of bucket `index`: (index - 128 * e) << e (histogram.bucket_lower_ns).
CREATE FUNCTION IF NOT EXISTS ioscaleBucketLowerNs AS (index) ->
    bitShiftLeft(toUInt64(modulo(index, 128) + 128 * least(intDiv(index, 128), 1)), ioscaleBucketShift(index))
