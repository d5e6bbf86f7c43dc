package io.ioscale.records;

import io.ioscale.histogram.PackedBuckets;
import io.ioscale.histogram.SparseBuckets;
import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One {@code IoSample} (schema/io_sample.avsc) as the jobs use it: I/O completed in one interval by one source
 * (run, host, VM, target, direction). Field names are the Avro names in camelCase; units are in the names.
 *
 * <p>The one high-volume record: it travels with its own serializer ({@link IoSampleSerializer}, chosen by the
 * {@code @TypeInfo} annotation wherever Flink meets the type), its histogram packed in one byte array
 * ({@link PackedBuckets}). Fields the rollups do not use are not carried: {@code percentile_q}/{@code
 * percentile_ns} (tool-reported percentiles cannot be merged, so they never enter a rollup; the raw table keeps
 * them) and {@code tags}.
 */
@TypeInfo(IoSampleSerializer.Factory.class)
public class IoSample extends Sample {
    public String target = "";
    /** READ or WRITE (the Avro enum symbol). */
    public String direction = "READ";
    public long ops;
    public long bytes;
    /** Mean I/Os in flight during the interval; 0 when unknown. */
    public double outstandingIos;
    public long errors;
    public long latencyCount;
    public long latencySumNs;
    public long latencyMinNs;
    public long latencyMaxNs;
    /** Bucket scheme of the sparse histogram; only scheme 1 is accepted (validated when decoded). */
    public int latencyHistScheme = 1;
    /**
     * Sparse histogram, packed ({@link PackedBuckets}): non-empty buckets, indexes ascending; empty = none.
     * Immutable once set: operators share the array.
     */
    public byte[] latencyBuckets = PackedBuckets.EMPTY;
    /**
     * The histogram as decoded (Avro's parallel {@code latency_bucket_index}/{@code latency_bucket_count}),
     * until {@code AvroRecords.check} validates it and packs it into {@link #latencyBuckets};
     * null afterwards. Never serialized.
     */
    public transient SparseBuckets decodedBuckets;
    /** {@link #quantiles()}, once asked for; never serialized. */
    private transient LatencyQuantiles quantiles;

    public IoSample() {}

    public boolean isRead() {
        return "READ".equals(direction);
    }

    /** Whether the sample carries a (non-empty) latency histogram. */
    public boolean hasHistogram() {
        return latencyBuckets.length > 0;
    }

    /** The histogram's buckets, unpacked (a copy). */
    public SparseBuckets buckets() {
        return PackedBuckets.unpack(latencyBuckets);
    }

    public void setBuckets(SparseBuckets buckets) {
        latencyBuckets = PackedBuckets.of(buckets);
        quantiles = null;
    }

    /**
     * The quantiles of this sample's own histogram (clamped to its exact min/max): what a window holding only this
     * sample reports. Computed once, on first use (see IoAccumulator: while the sample is still in the CPU caches).
     */
    public LatencyQuantiles quantiles() {
        if (quantiles == null) {
            quantiles = LatencyQuantiles.of(latencyBuckets, latencyMinNs, latencyMaxNs);
        }
        return quantiles;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IoSample s && tsMs == s.tsMs && intervalMs == s.intervalMs && runId.equals(s.runId)
                && stepIndex == s.stepIndex && host.equals(s.host) && vm.equals(s.vm) && target.equals(s.target)
                && direction.equals(s.direction) && ops == s.ops && bytes == s.bytes
                && Double.compare(outstandingIos, s.outstandingIos) == 0 && errors == s.errors
                && latencyCount == s.latencyCount && latencySumNs == s.latencySumNs
                && latencyMinNs == s.latencyMinNs && latencyMaxNs == s.latencyMaxNs
                && latencyHistScheme == s.latencyHistScheme
                && Arrays.equals(latencyBuckets, s.latencyBuckets);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tsMs, runId, stepIndex, host, vm, target, direction, ops);
    }

    @Override
    public String toString() {
        return "IoSample(ts_ms=" + tsMs + ", run_id=" + runId + ", step=" + stepIndex + ", " + host + "/" + vm + "/"
                + target + " " + direction + ", ops=" + ops + ", bytes=" + bytes + ", buckets="
                + PackedBuckets.size(latencyBuckets) + ")";
    }
}
