package io.ioscale.rollups;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.records.IoSample;
import io.ioscale.records.IoStats;
import io.ioscale.records.LatencyQuantiles;
import java.util.HashSet;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * Window state of the I/O rollups: sums, the exact latency statistics and the merged {@link LatencyHistogram}.
 *
 * <p>Memory: {@link BucketCounts} keeps counts only over the 128-bucket groups the values touched (two decades of
 * latency ~ 7 groups ~ 7 KB), not all 4352 buckets (34 KB): FIELD-NOTES saw dense per-window histograms fill a
 * 2 GB heap. Each sample's packed buckets are added in place (a window with a single sample keeps its array);
 * nothing else per sample is kept. The fleet rollup also keeps the set of sources seen ({@link SourceId}: the
 * sample's own strings, whose hashes the keyBy has already computed and cached, so adding one is cheap).
 * State and the fleet shuffle serialize it with {@link IoAccumulatorSerializer}.
 */
@TypeInfo(IoAccumulatorSerializer.Factory.class)
public class IoAccumulator {
    public long samples;
    public long ops;
    public long bytes;
    public long errors;
    public long readOps;
    public long writeOps;
    public long readBytes;
    public long writeBytes;
    /** sum of outstanding_ios x interval_ms. */
    public double outstandingIntervalMs;
    public long maxIntervalMs;
    public long latencyCount;
    public long latencySumNs;
    public long latencyMinNs = Long.MAX_VALUE;
    public long latencyMaxNs;
    /** Buckets of the samples that carried a histogram; their sum/min/max are kept apart (histogram*). */
    public BucketCounts buckets = new BucketCounts();
    public long histogramSumNs;
    public long histogramMinNs = Long.MAX_VALUE;
    public long histogramMaxNs;
    /** Distinct sources (fleet rollups only); null for per-source rollups. */
    public Set<SourceId> sources;
    /**
     * While this holds exactly one sample of 1 s or longer: that sample's quantiles, taken when it was added
     * (the sample's histogram is still in the CPU caches then; when a 1 s window fires it is not). Most 1 s
     * rows are such windows. Not serialized: a restored or copied accumulator computes them when it fires.
     */
    private transient LatencyQuantiles single;

    public IoAccumulator() {}

    public static IoAccumulator forFleet() {
        IoAccumulator acc = new IoAccumulator();
        acc.sources = new HashSet<>();
        return acc;
    }

    public void add(IoSample s) {
        samples++;
        ops += s.ops;
        bytes += s.bytes;
        errors += s.errors;
        if (s.isRead()) {
            readOps += s.ops;
            readBytes += s.bytes;
        } else {
            writeOps += s.ops;
            writeBytes += s.bytes;
        }
        outstandingIntervalMs += s.outstandingIos * s.intervalMs;
        maxIntervalMs = Math.max(maxIntervalMs, s.intervalMs);
        if (s.latencyCount > 0) {
            latencyCount += s.latencyCount;
            latencySumNs += s.latencySumNs;
            latencyMinNs = Math.min(latencyMinNs, s.latencyMinNs);
            latencyMaxNs = Math.max(latencyMaxNs, s.latencyMaxNs);
        }
        if (s.hasHistogram()) {
            buckets.add(s.latencyBuckets);
            histogramSumNs += s.latencySumNs;
            histogramMinNs = Math.min(histogramMinNs, s.latencyMinNs);
            histogramMaxNs = Math.max(histogramMaxNs, s.latencyMaxNs);
        }
        if (sources != null) {
            sources.add(new SourceId(s.host, s.vm, s.target));
        }
        // Shorter samples share their 1 s window: computing each one's quantiles would be wasted.
        single = samples == 1 && s.intervalMs >= 1000 ? s.quantiles() : null;
    }

    /** Adds {@code other} into this one, exactly (fleet partials, and windows rolling into the next grain). */
    public IoAccumulator merge(IoAccumulator other) {
        if (other.samples > 0) {
            single = samples == 0 ? other.single : null;
        }
        samples += other.samples;
        ops += other.ops;
        bytes += other.bytes;
        errors += other.errors;
        readOps += other.readOps;
        writeOps += other.writeOps;
        readBytes += other.readBytes;
        writeBytes += other.writeBytes;
        outstandingIntervalMs += other.outstandingIntervalMs;
        maxIntervalMs = Math.max(maxIntervalMs, other.maxIntervalMs);
        latencyCount += other.latencyCount;
        latencySumNs += other.latencySumNs;
        latencyMinNs = Math.min(latencyMinNs, other.latencyMinNs);
        latencyMaxNs = Math.max(latencyMaxNs, other.latencyMaxNs);
        buckets.merge(other.buckets);
        histogramSumNs += other.histogramSumNs;
        histogramMinNs = Math.min(histogramMinNs, other.histogramMinNs);
        histogramMaxNs = Math.max(histogramMaxNs, other.histogramMaxNs);
        if (sources != null && other.sources != null) {
            sources.addAll(other.sources);
        }
        return this;
    }

    /** The merged histogram (built here, once per firing). */
    public LatencyHistogram histogram() {
        return buckets.toHistogram(histogramSumNs, histogramMinNs, histogramMaxNs);
    }

    public IoStats toStats(long windowMs) {
        return IoStats.of(samples, ops, bytes, errors, readOps, writeOps, readBytes, writeBytes, outstandingIntervalMs,
                maxIntervalMs, latencyCount, latencySumNs, latencyMinNs, latencyMaxNs, buckets.toPacked(),
                histogramMinNs, histogramMaxNs, windowMs, single);
    }

    /** One source of I/O samples (both directions count once). */
    public record SourceId(String host, String vm, String target) {}
}
