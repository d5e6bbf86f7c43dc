package io.ioscale.records;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;

/**
 * I/O figures of one rollup row (a window of one source, or of the whole fleet), computed once when the window
 * fires from {@code IoAccumulator}.
 *
 * <h2>Rates</h2>
 * {@code iops = ops / T}, {@code mb_per_s = bytes / 10^6 / T}, {@code outstanding_ios = sum(outstanding_ios x
 * interval_ms) / T}, with {@code T = max(window length, longest sample interval)}. For samples no longer than the
 * window this is the window's mean rate, and for the fleet the sum of the sources' means (I/Os in flight add up
 * across sources); a 5 s sample in a 1 s window gives its own 5 s mean instead of five times it. A window that a
 * source covered only partly (it started mid-window) shows the lower mean the window really had.
 *
 * <h2>Latency</h2>
 * count, sum, min, max and mean come from the samples' exact {@code latency_*} fields (mean = sum / count, never a
 * mean of means); quantiles come from the merged histogram (sparse buckets kept in the row so SQL can merge rows
 * further), see {@link LatencyQuantiles}. The buckets stay packed ({@link PackedBuckets}) from the sample to the
 * row's bytes: a one-sample window (most 1 s rows) never unpacks them.
 */
public class IoStats {
    public long samples;
    public long ops;
    public long bytes;
    public long errors;
    public long readOps;
    public long writeOps;
    public long readBytes;
    public long writeBytes;
    public double iops;
    public double mbPerS;
    public double outstandingIos;
    public long latencyCount;
    public long latencySumNs;
    public long latencyMinNs;
    public long latencyMaxNs;
    /** NaN when no sample reported latency. */
    public double latencyMeanNs = Double.NaN;
    /** The merged histogram's non-empty buckets, packed. */
    public byte[] latencyBuckets = PackedBuckets.EMPTY;
    public LatencyQuantiles quantiles = new LatencyQuantiles();

    public IoStats() {}

    public static double rateDivisorS(long windowMs, long maxIntervalMs) {
        return Math.max(windowMs, maxIntervalMs) / 1000.0;
    }

    public static IoStats of(long samples, long ops, long bytes, long errors, long readOps, long writeOps,
                             long readBytes, long writeBytes, double outstandingIntervalMs, long maxIntervalMs,
                             long latencyCount, long latencySumNs, long latencyMinNs, long latencyMaxNs,
                             LatencyHistogram histogram, long windowMs) {
        return of(samples, ops, bytes, errors, readOps, writeOps, readBytes, writeBytes, outstandingIntervalMs,
                maxIntervalMs, latencyCount, latencySumNs, latencyMinNs, latencyMaxNs,
                PackedBuckets.of(histogram.toSparse()), histogram.minNs(), histogram.maxNs(), windowMs, null);
    }

    /**
     * From packed buckets whose values lie in [histogramMinNs, histogramMaxNs] (exact, from the samples);
     * {@code quantiles}: those of these buckets if already known (one sample's own), else null.
     */
    public static IoStats of(long samples, long ops, long bytes, long errors, long readOps, long writeOps,
                             long readBytes, long writeBytes, double outstandingIntervalMs, long maxIntervalMs,
                             long latencyCount, long latencySumNs, long latencyMinNs, long latencyMaxNs,
                             byte[] buckets, long histogramMinNs, long histogramMaxNs, long windowMs,
                             LatencyQuantiles quantiles) {
        IoStats s = new IoStats();
        double t = rateDivisorS(windowMs, maxIntervalMs);
        s.samples = samples;
        s.ops = ops;
        s.bytes = bytes;
        s.errors = errors;
        s.readOps = readOps;
        s.writeOps = writeOps;
        s.readBytes = readBytes;
        s.writeBytes = writeBytes;
        s.iops = ops / t;
        s.mbPerS = bytes / 1e6 / t;
        s.outstandingIos = outstandingIntervalMs / 1000.0 / t;
        s.latencyCount = latencyCount;
        s.latencySumNs = latencySumNs;
        s.latencyMinNs = latencyCount > 0 ? latencyMinNs : 0;
        s.latencyMaxNs = latencyCount > 0 ? latencyMaxNs : 0;
        s.latencyMeanNs = latencyCount > 0 ? (double) latencySumNs / latencyCount : Double.NaN;
        s.latencyBuckets = buckets;
        s.quantiles = quantiles != null ? quantiles : LatencyQuantiles.of(buckets, histogramMinNs, histogramMaxNs);
        return s;
    }

    /**
     * The time T (ms) the row's rates are over: max(window, longest sample interval), so a row whose samples span a
     * whole step covers that step. Recovered from {@code ops / iops} because T is neither a column nor kept in the
     * step analyzer's state; 1 s for a row without I/O (which adds no rate anywhere).
     */
    public long rateSpanMs() {
        return ops > 0 && iops > 0 ? Math.round(ops / iops * 1000.0) : 1000;
    }

    /** The merged histogram's buckets, unpacked (a copy). */
    public SparseBuckets buckets() {
        return PackedBuckets.unpack(latencyBuckets);
    }

    /** The columns shared by io_samples_* and io_fleet_* (read/write splits are written by the fleet row). */
    public void write(RowFormat out) {
        out.uint64("samples", samples)
                .uint64("ops", ops)
                .uint64("bytes", bytes)
                .uint64("errors", errors)
                .float64("iops", iops)
                .float64("mb_per_s", mbPerS)
                .float64("outstanding_ios", outstandingIos)
                .uint64("latency_count", latencyCount)
                .uint64("latency_sum_ns", latencySumNs)
                .uint64("latency_min_ns", latencyMinNs)
                .uint64("latency_max_ns", latencyMaxNs)
                .nullableFloat64("latency_mean_ns", latencyMeanNs)
                .uint8("latency_hist_scheme", LatencyHistogram.SCHEME_ID)
                .packedBuckets("latency_bucket_index", "latency_bucket_count", latencyBuckets);
        quantiles.write(out);
    }
}
