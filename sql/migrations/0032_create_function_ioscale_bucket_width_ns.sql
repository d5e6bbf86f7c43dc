-- Width (ns) of bucket `index`: 2^e; the bucket is [lower, lower + width).
CREATE FUNCTION IF NOT EXISTS ioscaleBucketWidthNs AS (index) -> bitShiftLeft(toUInt64(1), ioscaleBucketShift(index))
