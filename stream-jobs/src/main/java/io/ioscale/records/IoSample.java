package io.ioscale.records;

import java.util.Arrays;
import java.util.Objects;

/**
 * One {@code IoSample} (schema/io_sample.avsc) as the jobs use it: I/O completed in one interval by one source
 * (run, host, VM, target, direction). Field names are the Avro names in camelCase; units are in the names.
 *
 * <p>A Flink POJO (public fields, no-argument constructor) so it travels with Flink's own serializer. Fields the
 * rollups do not use are not carried: {@code percentile_q}/{@code percentile_ns} (tool-reported percentiles
 * cannot be merged, so they never enter a rollup; the raw table keeps them) and {@code tags}.
 */
public class IoSample {
    /** Start of the interval, UTC epoch ms: the event time. */
    public long tsMs;
    public int intervalMs;
    public String runId = "";
    /** 0-based load step; -1 when the collector does not know it. */
    public int stepIndex = -1;
    public String host = "";
    public String vm = "";
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
    /** Sparse histogram: non-empty bucket indexes, strictly ascending. */
    public int[] latencyBucketIndex = new int[0];
    /** Sparse histogram: count per index in {@link #latencyBucketIndex}. */
    public long[] latencyBucketCount = new long[0];

    public IoSample() {}

    public boolean isRead() {
        return "READ".equals(direction);
    }

    /** Whether the sample carries a (non-empty) latency histogram. */
    public boolean hasHistogram() {
        return latencyBucketIndex.length > 0;
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
                && Arrays.equals(latencyBucketIndex, s.latencyBucketIndex)
                && Arrays.equals(latencyBucketCount, s.latencyBucketCount);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tsMs, runId, stepIndex, host, vm, target, direction, ops);
    }

    @Override
    public String toString() {
        return "IoSample(ts_ms=" + tsMs + ", run_id=" + runId + ", step=" + stepIndex + ", " + host + "/" + vm + "/"
                + target + " " + direction + ", ops=" + ops + ", bytes=" + bytes + ", buckets="
                + latencyBucketIndex.length + ")";
    }
}
