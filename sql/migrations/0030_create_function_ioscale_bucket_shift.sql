-- Latency histogram scheme 1 (ioscale.histogram, LatencyHistogram.java, golden vectors in
-- schema/histogram_vectors.tsv): bucket `index` of shift e = max(0, index // 128 - 1) holds 2^e values.
-- The bucket functions (0030-0033) and the quantile rule (0034-0035) are the one SQL home of the scheme; views
-- and sql/queries call them. SQL functions are server-global (hence the prefix) and kept in the server's
-- user_defined folder across restarts; a view stores its query with them written out.
CREATE FUNCTION IF NOT EXISTS ioscaleBucketShift AS (index) -> toUInt8(greatest(intDiv(index, 128), 1) - 1)
