package io.ioscale.functions;

import io.ioscale.histogram.LatencyHistogram;
import io.ioscale.histogram.SparseBuckets;
import io.ioscale.records.IoSample;
import io.ioscale.records.IoStats;
import java.util.HashSet;
import java.util.Set;

/**
 * Window state of the I/O rollups: sums, the exact latency statistics and the merged {@link LatencyHistogram}.
 *
 * <p>Memory: {@link BucketCounts} keeps counts only over the 128-bucket groups the values touched (two decades of
 * latency ~ 7 groups ~ 7 KB), not all 4352 buckets (34 KB): FIELD-NOTES saw dense per-window histograms fill a
 * 2 GB heap. Each sample's sparse arrays are added in place; nothing per sample is kept. The fleet rollup also keeps the set of
 * sources seen ("host/vm/target"), one short string per source.
 */
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
    public Set<String> sources;

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
            buckets.add(s.latencyBucketIndex, s.latencyBucketCount);
            histogramSumNs += s.latencySumNs;
            histogramMinNs = Math.min(histogramMinNs, s.latencyMinNs);
            histogramMaxNs = Math.max(histogramMaxNs, s.latencyMaxNs);
        }
        if (sources != null) {
            sources.add(s.host + "/" + s.vm + "/" + s.target);
        }
    }

    /** Adds {@code other} into this one (session/merging windows; the tumbling rollups never call it). */
    public IoAccumulator merge(IoAccumulator other) {
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
        SparseBuckets sparse = buckets.toSparse();
        return IoStats.of(samples, ops, bytes, errors, readOps, writeOps, readBytes, writeBytes, outstandingIntervalMs,
                maxIntervalMs, latencyCount, latencySumNs, latencyMinNs, latencyMaxNs, sparse.indexes(),
                sparse.counts(), histogramMinNs, histogramMaxNs, windowMs);
    }
}
