-- T64 before ZSTD for the summed histograms, as for io_samples (0046).
ALTER TABLE ioscale.io_samples_hist_sums
    MODIFY COLUMN hist SimpleAggregateFunction(sumMap, Map(UInt16, UInt64)) CODEC(T64, ZSTD(1))
